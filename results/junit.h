/* SPDX-License-Identifier: MIT */
/*
 * A small JUnit XML writer, for CI systems that show test reports: test
 * suites of test cases, each passed, failed (<failure>), in error
 * (<error>) or skipped (<skipped/>). What it writes is valid against the
 * strictest reader's schema, the Jenkins xunit plugin's junit-10.xsd
 * (kept in tests/data/junit/, which tests/check_ci.c validates against),
 * and has what GitLab and GitHub's report actions read: testsuites (name,
 * tests, failures, errors, time: no skipped, which junit-10.xsd refuses
 * there); testsuite (the same and skipped, timestamp, hostname, id,
 * package, properties, system-out, system-err); testcase (name,
 * classname, time, system-out); failure and error with message, type and
 * a text (GitLab shows only the text: the message when there is no
 * other). Every string is XML-escaped; bytes that XML 1.0 cannot carry
 * (control characters, invalid UTF-8) become '?'. Written atomically.
 */
#ifndef RT_RESULTS_JUNIT_H
#define RT_RESULTS_JUNIT_H

#include <stddef.h>
#include <stdio.h>

struct rt_junit;

/* What became of a test case. */
enum rt_junit_result {
	RT_JUNIT_PASS,
	RT_JUNIT_FAILURE,
	RT_JUNIT_ERROR,
	RT_JUNIT_SKIPPED,
};

/* A new, empty report whose <testsuites> is called @name (copied); NULL when out of memory. */
struct rt_junit *rt_junit_new(const char *name);
void rt_junit_free(struct rt_junit *j);

/**
 * rt_junit_suite() - add a <testsuite> called @name
 * @j: the report
 * @name: the suite's name (copied)
 *
 * Return: the suite's number, for rt_junit_case() and rt_junit_property(),
 * or -ENOMEM.
 */
int rt_junit_suite(struct rt_junit *j, const char *name);

/* A <property name= value=> of suite @suite (both copied). Return: 0 or -ENOMEM. */
int rt_junit_property(struct rt_junit *j, int suite, const char *name, const char *value);

/* The suite's time attribute, in seconds (default: the sum of its cases'; negative or not finite: 0). */
void rt_junit_suite_time(struct rt_junit *j, int suite, double time);

/**
 * rt_junit_case() - add a <testcase> to suite @suite
 * @j: the report
 * @suite: from rt_junit_suite()
 * @classname, @name: the case's attributes (copied)
 * @time: seconds it took (negative or not finite: 0)
 * @result: what became of it
 * @message, @type: the <failure>/<error> attributes, or the <skipped>
 *	message (@type unused); may be NULL
 * @text: the <failure>/<error> element's text (NULL: @message, or the
 *	element's name)
 * @out: the case's <system-out> (NULL: none)
 *
 * Return: the case's number within the report, or -ENOMEM.
 */
int rt_junit_case(struct rt_junit *j, int suite, const char *classname, const char *name,
		  double time, enum rt_junit_result result, const char *message,
		  const char *type, const char *text, const char *out);

/* Number of cases of the report with @result (all suites). */
int rt_junit_count(const struct rt_junit *j, enum rt_junit_result result);

/* Write the report as XML to @f. Return: 0, or -EIO. */
int rt_junit_fprint(const struct rt_junit *j, FILE *f);

/**
 * rt_junit_write() - write the report to @path atomically (temp file + rename)
 * @path: target; "-" means stdout
 * Return: 0, or -errno with a message already printed naming @path.
 */
int rt_junit_write(const struct rt_junit *j, const char *path);

/* Append @s to @f XML-escaped; @attr: for an attribute value (also escapes quotes and newlines). */
void rt_xml_escape(FILE *f, const char *s, int attr);

#endif /* RT_RESULTS_JUNIT_H */
