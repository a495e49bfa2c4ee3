/* SPDX-License-Identifier: MIT */
/*
 * Compiler and sanitizer glue shared by every core file: branch hints,
 * cache-line alignment, ONCE accessors and the ThreadSanitizer annotation
 * entry points (no-ops outside a TSan build).
 *
 * Names in core/ (STYLE.md: the kernel's names for emulated kernel code;
 * "foo() takes the lock, __foo() expects the caller to hold it"):
 *
 *   foo()    takes the locks it needs.
 *   __foo()  the same operation for a caller that already holds the lock
 *            foo() would take, and asserts it (assert_spin_locked(),
 *            BUG_ON(!PageLocked())): __remove_from_page_cache() under
 *            tree_lock and the page lock, __anon_vma_link() under
 *            anon_vma->lock. __ means this and nothing else.
 *   _foo()   the implementation behind the macro or inline foo(), never
 *            called by name outside the file that defines it (the lock
 *            suites excepted): either it takes the caller's site, as
 *            _spin_lock(l, 0, __FILE__, __LINE__) behind spin_lock(l)
 *            (_down_read(), _down(), _lock_page(), _bit_spin_lock(),
 *            _alloc_page(), _might_sleep(), _vm_bug(), _rt_die()), or
 *            it is foo()'s out-of-line slow path (_spin_lock_contended(),
 *            _bit_spin_wait(), _flight_record(), _rt_rcu_read_lock(),
 *            _rt_task_attach_lazy()).
 *
 * Kernel names that begin with __ for another reason, kept as the kernel
 * spells them so a diff against 2.6 reads line for line: type
 * constructors (__pte(), __pgprot()), list.h's __list_add(),
 * __free_page(), __iget() (fs/inode.c's, with the i_count held); and
 * variables private to an inline (__lockdep_on, __rt_rcu_depth).
 */
#ifndef RT_CORE_COMPILER_H
#define RT_CORE_COMPILER_H

#include <stddef.h>

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/*
 * Inlined at every call, whatever gcc's size estimate: the lock fast paths
 * and the lock_events.h steps they are built from. The kernel's
 * __always_inline, under a name that neither glibc (sys/cdefs.h) nor an
 * __attribute__((always_inline)) elsewhere can collide with.
 */
#define force_inline	inline __attribute__((__always_inline__))

#define SMP_CACHE_BYTES	64
#define ____cacheline_aligned __attribute__((aligned(SMP_CACHE_BYTES)))

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* Single-copy atomic plain accesses, visible to TSan as atomics. */
#define READ_ONCE(x)	 __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/*
 * Publishing an initialised object through a pointer that a reader may
 * load holding no lock the writer held: 2.6 code relied on x86's store
 * order and the reader's address dependency (Alpha's
 * smp_read_barrier_depends()). C11 and TSan know neither, so the model
 * says release and acquire, which is what that hardware gave.
 */
#define smp_store_release(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define smp_load_acquire(x)	 __atomic_load_n(&(x), __ATOMIC_ACQUIRE)

#define cpu_relax()	__builtin_ia32_pause()

/*
 * A standalone memory fence: __atomic_thread_fence(@order). ThreadSanitizer
 * does not model fences (gcc says so with -Wtsan): under TSan a fence
 * neither orders nor creates happens-before. Every fence in core/ orders
 * accesses that are atomics themselves, so TSan, which looks for data races
 * and not for weak-memory reorderings, misses nothing by it; where a fence
 * is *meant* to stay invisible to TSan (the data-integrity seqlock in
 * page.h) that is the point. The pragma keeps -Werror TSan builds quiet.
 */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
# define memory_fence(order) do {					\
		_Pragma("GCC diagnostic push")				\
		_Pragma("GCC diagnostic ignored \"-Wtsan\"")		\
		__atomic_thread_fence(order);				\
		_Pragma("GCC diagnostic pop")				\
	} while (0)
#else
# define memory_fence(order)	__atomic_thread_fence(order)
#endif

#if defined(__SANITIZE_THREAD__)
# define RT_TSAN 1
#elif defined(__has_feature)
# if __has_feature(thread_sanitizer)
#  define RT_TSAN 1
# endif
#endif
#ifndef RT_TSAN
# define RT_TSAN 0
#endif

/*
 * Harness bookkeeping that ThreadSanitizer need not watch (flight recorder,
 * lockdep's tables, lock statistics, interleaving coverage): gcc and clang
 * then instrument neither its plain nor its atomic accesses. Only for code
 * that touches no data of the model and whose atomics, instrumented, could
 * only add happens-before edges the model does not have; each user says
 * why in a comment. Interceptors (pthread_mutex_lock, ...) still run.
 */
#define RT_NOTSAN	__attribute__((no_sanitize_thread))

#if defined(__SANITIZE_ADDRESS__)
# define RT_ASAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define RT_ASAN 1
# endif
#endif
#ifndef RT_ASAN
# define RT_ASAN 0
#endif

#if RT_TSAN
/*
 * The annotation interface of compiler-rt's tsan_interface.h, declared here
 * so the build does not depend on where a distribution put that header.
 */
void __tsan_mutex_create(void *addr, unsigned flags);
void __tsan_mutex_destroy(void *addr, unsigned flags);
void __tsan_mutex_pre_lock(void *addr, unsigned flags);
void __tsan_mutex_post_lock(void *addr, unsigned flags, int recursion);
int __tsan_mutex_pre_unlock(void *addr, unsigned flags);
void __tsan_mutex_post_unlock(void *addr, unsigned flags);
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
# define RT_TSAN_MUTEX_LINKER_INIT	(1u << 0)
# define RT_TSAN_MUTEX_WRITE_REENTRANT	(1u << 1)
# define RT_TSAN_MUTEX_READ_REENTRANT	(1u << 2)
# define RT_TSAN_MUTEX_NOT_STATIC	(1u << 8)
# define RT_TSAN_MUTEX_READ_LOCK	(1u << 3)
# define RT_TSAN_MUTEX_TRY_LOCK		(1u << 4)
# define RT_TSAN_MUTEX_TRY_LOCK_FAILED	(1u << 5)
# define tsan_mutex_create(a, f)	__tsan_mutex_create((a), (f))
# define tsan_mutex_destroy(a, f)	__tsan_mutex_destroy((a), (f))
# define tsan_mutex_pre_lock(a, f)	__tsan_mutex_pre_lock((a), (f))
# define tsan_mutex_post_lock(a, f)	__tsan_mutex_post_lock((a), (f), 0)
# define tsan_mutex_pre_unlock(a, f)	((void)__tsan_mutex_pre_unlock((a), (f)))
# define tsan_mutex_post_unlock(a, f)	__tsan_mutex_post_unlock((a), (f))
# define tsan_acquire(a)		__tsan_acquire(a)
# define tsan_release(a)		__tsan_release(a)
#else
# define RT_TSAN_MUTEX_LINKER_INIT	0
# define RT_TSAN_MUTEX_WRITE_REENTRANT	0
# define RT_TSAN_MUTEX_READ_REENTRANT	0
# define RT_TSAN_MUTEX_NOT_STATIC	0
# define RT_TSAN_MUTEX_READ_LOCK	0
# define RT_TSAN_MUTEX_TRY_LOCK		0
# define RT_TSAN_MUTEX_TRY_LOCK_FAILED	0
# define tsan_mutex_create(a, f)	((void)(a), (void)(f))
# define tsan_mutex_destroy(a, f)	((void)(a), (void)(f))
# define tsan_mutex_pre_lock(a, f)	((void)(a), (void)(f))
# define tsan_mutex_post_lock(a, f)	((void)(a), (void)(f))
# define tsan_mutex_pre_unlock(a, f)	((void)(a), (void)(f))
# define tsan_mutex_post_unlock(a, f)	((void)(a), (void)(f))
# define tsan_acquire(a)		((void)(a))
# define tsan_release(a)		((void)(a))
#endif

#endif /* RT_CORE_COMPILER_H */
