// SPDX-License-Identifier: MIT
#include "artifact.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "record.h"

uint64_t rt_signature_hash(const char *signature)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const unsigned char *p = (const unsigned char *)signature; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	return h;
}

int rt_artifact_save(json_t *art, const char *dir, char *path, size_t len)
{
	const char *kind = json_string_value(json_object_get(art, "kind"));
	const char *sig = json_string_value(json_object_get(art, "signature"));
	char file[4096];
	json_int_t count = 1;
	json_t *old;
	int err;

	if (!kind || !sig) {
		fprintf(stderr, "rmaptorture: internal: a failure artifact without kind or signature\n");
		return -EINVAL;
	}
	snprintf(file, sizeof(file), "%s/failure-%s-%016" PRIx64 ".json", dir, kind,
		 rt_signature_hash(sig));
	old = json_load_file(file, 0, NULL);
	if (old) {
		const char *old_sig = json_string_value(json_object_get(old, "signature"));

		if (old_sig && !strcmp(old_sig, sig))
			count = json_integer_value(json_object_get(old, "count")) + 1;
		json_decref(old);
	}
	json_object_set_new(art, "count", json_integer(count > 0 ? count : 1));
	err = rt_record_write(art, file);
	if (err)
		return err;
	if (path)
		snprintf(path, len, "%s", file);
	return count == 1;
}

const char *const rt_failure_kinds[] = {
	"bug", "warn", "lockdep-cycle", "lockdep-order", "lockdep-recursion",
	"lockdep-unheld-release", "atomic-sleep", "audit", "hang",
	"tsan", "asan", "ubsan", "lsan", NULL,
};

static const char *const sched_names[] = { "free", "random", "pct", "cover", "vtime", "explore", NULL };
static const char *const build_names[] = { "plain", "tsan", "asan", NULL };

/* The one-line verdict: "artifact NAME: field 'FIELD' ..."; always -EINVAL. */
__attribute__((format(printf, 5, 6)))
static int bad_field(char *err, size_t errlen, const char *name, const char *field,
		     const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (!err || !errlen)
		return -EINVAL;
	snprintf(err, errlen, "artifact %s: field '%s' ", name, field);
	n = strlen(err);
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

struct check {
	const json_t *art;
	const char *name;
	char *err;
	size_t errlen;
};

#define BAD(c, field, ...) bad_field((c)->err, (c)->errlen, (c)->name, field, __VA_ARGS__)

static const json_t *get(const struct check *c, const char *field, int *rc)
{
	const json_t *v = json_object_get(c->art, field);

	*rc = v ? 0 : BAD(c, field, "is missing");
	return v;
}

#define TYPE_BIT(t)	(1u << (t))

/* @field present and of one of the types in @types (TYPE_BIT(json_type)s); else @why. */
static int check_type(const struct check *c, const char *field, unsigned types, const char *why)
{
	int rc;
	const json_t *v = get(c, field, &rc);

	if (rc)
		return rc;
	return types & (1u << json_typeof(v)) ? 0 : BAD(c, field, "%s", why);
}

static int check_string(const struct check *c, const char *field, bool nonempty)
{
	int rc;
	const json_t *v = get(c, field, &rc);

	if (rc)
		return rc;
	if (!json_is_string(v))
		return BAD(c, field, "must be a string");
	if (nonempty && !*json_string_value(v))
		return BAD(c, field, "must not be empty");
	return 0;
}

static int check_enum(const struct check *c, const char *field, const char *const names[])
{
	char list[256] = "";
	const char *s;
	size_t n = 0;
	int rc;
	const json_t *v = get(c, field, &rc);

	if (rc)
		return rc;
	s = json_string_value(v);
	for (int i = 0; s && names[i]; i++)
		if (!strcmp(s, names[i]))
			return 0;
	for (int i = 0; names[i] && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", names[i]);
	return BAD(c, field, "must be one of %s", list);
}

static int check_int_value(const struct check *c, const char *field, const json_t *v,
			   json_int_t min, json_int_t max)
{
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
		if (max == INT32_MAX || max == INT64_MAX)
			return BAD(c, field, "must be an integer >= %" JSON_INTEGER_FORMAT, min);
		return BAD(c, field, "must be an integer in [%" JSON_INTEGER_FORMAT
			   ", %" JSON_INTEGER_FORMAT "]", min, max);
	}
	return 0;
}

static int check_int(const struct check *c, const char *field, json_int_t min, json_int_t max)
{
	int rc;
	const json_t *v = get(c, field, &rc);

	return rc ? rc : check_int_value(c, field, v, min, max);
}

static int check_seconds(const struct check *c, const char *field)
{
	int rc;
	const json_t *v = get(c, field, &rc);

	if (rc)
		return rc;
	if (!json_is_number(v) || json_number_value(v) < 0 || !isfinite(json_number_value(v)))
		return BAD(c, field, "must be a number >= 0");
	return 0;
}

static int check_seed(const struct check *c)
{
	uint64_t seed;
	int rc;
	const json_t *v = get(c, "seed", &rc);

	if (rc)
		return rc;
	/* Artifacts have always written the seed as a string. */
	if (rt_seed_parse(json_string_value(v), &seed))
		return BAD(c, "seed", "must be a string of decimal digits that fits in 64 bits");
	return 0;
}

static int check_string_array(const struct check *c, const char *field, const json_t *v,
			      bool nonempty)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(v) || (nonempty && !json_array_size(v)))
		return BAD(c, field, "must be a%s array of strings", nonempty ? " non-empty" : "n");
	json_array_foreach(v, i, e)
		if (!json_is_string(e))
			return BAD(c, field, "must be an array of strings (element %zu is not)", i);
	return 0;
}

static int check_args(const struct check *c)
{
	int rc;
	const json_t *v = get(c, "args", &rc);

	if (rc || (rc = check_string_array(c, "args", v, true)))
		return rc;
	if (strcmp(json_string_value(json_array_get(v, 0)), "run"))
		return BAD(c, "args", "must start with \"run\" (the command to replay)");
	return 0;
}

static int check_weights(const struct check *c)
{
	const char *key;
	const json_t *w;
	int rc;
	const json_t *v = get(c, "weights", &rc);

	if (rc)
		return rc;
	if (!json_is_object(v))
		return BAD(c, "weights", "must be an object mapping op names to integers");
	json_object_foreach((json_t *)v, key, w) {
		if (!json_is_integer(w) || json_integer_value(w) < 0)
			return BAD(c, "weights", "must map op names to integers >= 0 ('%s' does not)",
				   key);
	}
	return 0;
}

/* "sites" and "held": [{what, file, line}]. */
static int check_sites(const struct check *c, const char *field)
{
	const json_t *v = json_object_get(c->art, field), *e;
	size_t i;

	if (!v)
		return 0;
	if (!json_is_array(v))
		return BAD(c, field, "must be an array of {what, file, line} objects");
	json_array_foreach(v, i, e) {
		const json_t *line = json_object_get(e, "line");

		if (!json_is_object(e) || !json_is_string(json_object_get(e, "what")) ||
		    !json_is_string(json_object_get(e, "file")) ||
		    !json_is_integer(line) || json_integer_value(line) < 0)
			return BAD(c, field, "must be an array of {what, file, line} objects"
				   " (element %zu is not)", i);
	}
	return 0;
}

static int check_flight(const struct check *c)
{
	const json_t *v = json_object_get(c->art, "flight"), *e;
	size_t i;

	if (!v)
		return 0;
	if (!json_is_array(v))
		return BAD(c, "flight", "must be an array of {task, events} objects");
	json_array_foreach(v, i, e) {
		const json_t *ev = json_object_get(e, "events"), *s;
		size_t k;
		bool ok = json_is_object(e) && json_is_string(json_object_get(e, "task")) &&
			  json_is_array(ev);

		json_array_foreach(ok ? ev : NULL, k, s)
			ok = ok && json_is_string(s);
		if (!ok)
			return BAD(c, "flight", "must be an array of {task, events: [strings]} objects"
				   " (element %zu is not)", i);
	}
	return 0;
}

/*
 * Another record kind given where an artifact belongs (a run's record, a
 * bench result): say so, and what to give instead, rather than name the
 * first field it lacks. A record names its kind in "record", or (result
 * records) in a "kind" that is no failure's.
 */
static int check_not_other_record(const struct check *c)
{
	const char *rec = json_string_value(json_object_get(c->art, "record"));
	const char *kind = json_string_value(json_object_get(c->art, "kind"));

	if (!rec && kind) {
		for (int i = 0; rt_failure_kinds[i]; i++)
			if (!strcmp(kind, rt_failure_kinds[i]))
				return 0;
		rec = kind;
	}
	if (!rec || !strcmp(rec, "failure"))
		return 0;
	if (c->err && c->errlen)
		snprintf(c->err, c->errlen, "artifact %s: this is a %s record, not a failure artifact:"
			 " give the failure-*.json that 'run --out DIR' writes in DIR for each failure",
			 c->name, rec);
	return -EINVAL;
}

int rt_artifact_check(const json_t *art, const char *name, const char *const designs[],
		      char *err, size_t errlen)
{
	const struct check ck = { art, name, err, errlen }, *c = &ck;
	const json_t *v;
	int rc;

	if (!json_is_object(art)) {
		if (err && errlen)
			snprintf(err, errlen, "artifact %s: not a JSON object", name);
		return -EINVAL;
	}
	if ((rc = check_not_other_record(c)))
		return rc;
	if (rt_record_check_format(art, name, err, errlen))
		return -EINVAL;
	v = get(c, "record", &rc);
	if (rc)
		return rc;
	if (!json_is_string(v) || strcmp(json_string_value(v), "failure"))
		return BAD(c, "record", "must be \"failure\"");
	if ((rc = check_enum(c, "kind", rt_failure_kinds)) ||
	    (rc = check_string(c, "message", false)) ||
	    (rc = check_string(c, "signature", true)))
		return rc;
	if ((rc = check_type(c, "op", TYPE_BIT(JSON_STRING) | TYPE_BIT(JSON_NULL), "must be a string or null")))
		return rc;
	if ((rc = check_string(c, "task", false)) ||
	    (rc = check_string(c, "scenario", true)) ||
	    (rc = check_enum(c, "rmap", designs)) ||
	    (rc = check_int(c, "threads", 1, INT32_MAX)) ||
	    (rc = check_int(c, "reclaim_threads", 0, INT32_MAX)) ||
	    (rc = check_seed(c)) ||
	    (rc = check_enum(c, "sched", sched_names)))
		return rc;
	v = json_object_get(art, "pct_depth");
	if (!strcmp(json_string_value(json_object_get(art, "sched")), "pct") || (v && !json_is_null(v)))
		if ((rc = check_int(c, "pct_depth", 1, INT32_MAX)))
			return rc;
	if ((rc = check_int(c, "sched_steps", 0, INT64_MAX)))
		return rc;
	v = get(c, "inject", &rc);
	if (rc || (rc = check_string_array(c, "inject", v, false)))
		return rc;
	if ((rc = check_int(c, "pages", 1, INT64_MAX)) ||
	    (rc = check_int(c, "swap", 0, INT64_MAX)) ||
	    (rc = check_int(c, "ops", 0, INT64_MAX)) ||
	    (rc = check_seconds(c, "seconds")) ||
	    (rc = check_int(c, "perturb", 0, INT32_MAX)) ||
	    (rc = check_int(c, "procs", 1, INT32_MAX)) ||
	    (rc = check_weights(c)) ||
	    (rc = check_enum(c, "build", build_names)) ||
	    (rc = check_string(c, "version", false)) ||
	    (rc = check_string(c, "git", false)) ||
	    (rc = check_string(c, "date", false)))
		return rc;
	if ((rc = check_type(c, "machine", TYPE_BIT(JSON_OBJECT), "must be an object")))
		return rc;
	if ((rc = check_string(c, "reproduce", true)))
		return rc;
	if (strncmp(json_string_value(json_object_get(art, "reproduce")), "rmaptorture run ", 16))
		return BAD(c, "reproduce", "must start with \"rmaptorture run \"");
	if ((rc = check_args(c)) ||
	    (rc = check_int(c, "count", 1, INT64_MAX)) ||
	    (rc = check_sites(c, "sites")) ||
	    (rc = check_sites(c, "held")))
		return rc;
	v = json_object_get(art, "stack");
	if (v && (rc = check_string_array(c, "stack", v, false)))
		return rc;
	return check_flight(c);
}

json_t *rt_artifact_load(const char *path, const char *const designs[], char *err,
			 size_t errlen)
{
	json_error_t jerr;
	struct stat st;
	json_t *art;

	if (stat(path, &st)) {
		snprintf(err, errlen, "artifact %s: %s", path,
			 errno == ENOENT ? "no such file" : strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "artifact %s: %s", path, S_ISDIR(st.st_mode) ?
			 "is a directory, not a failure artifact (failure-*.json)" : "not a regular file");
		return NULL;
	}
	art = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!art) {
		if (jerr.line < 0)
			snprintf(err, errlen, "artifact %s: cannot read: %s", path, jerr.text);
		else
			snprintf(err, errlen, "artifact %s: not valid JSON (line %d, column %d: %s)",
				 path, jerr.line, jerr.column, jerr.text);
		return NULL;
	}
	if (rt_artifact_check(art, path, designs, err, errlen)) {
		json_decref(art);
		return NULL;
	}
	return art;
}

uint64_t rt_artifact_seed(const json_t *art)
{
	uint64_t seed = 0;

	if (rt_seed_of(json_object_get(art, "seed"), &seed))
		return 0;
	return seed;
}
