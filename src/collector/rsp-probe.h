/* rsp-probe.h — what `rsp record` checks before it records: perf, the
 * privileges system-wide tracepoints need, tracefs, and which events of
 * the RSP event set this kernel has.  Every failure carries one message
 * naming the problem and the fix.
 *
 * The judgements are pure functions of what was read (so the tests can feed
 * them any machine); the rsp_probe_*_here() wrappers read this machine.
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

#define RSP_PROBE_ERROR (rsp_probe_error_quark ())
GQuark rsp_probe_error_quark (void);

typedef enum {
  RSP_PROBE_ERROR_NO_PERF,       /* perf is not installed (or RSP_PERF is wrong) */
  RSP_PROBE_ERROR_PRIVILEGES,    /* not allowed to record the whole system */
  RSP_PROBE_ERROR_NO_TRACEFS,    /* tracefs not mounted and cannot be mounted */
  RSP_PROBE_ERROR_NO_EVENTS,     /* not a single tracepoint of the set exists */
} RspProbeError;

/* One event of the RSP event set (docs/RECORDING.md, "The two channels"). */
typedef struct {
  const char *name;      /* "sched:sched_switch" */
  const char *lost;      /* what the analysis loses without it */
  gboolean irq_context;  /* often fires in (soft)irq context: perf drops them on idle CPUs (docs/RECORDING.md) */
} RspEventSpec;

/* The tracepoints of the set, in command-line order.  The sampling event
 * (cpu-clock) is not a tracepoint and is not listed. */
const RspEventSpec *rsp_probe_event_set (guint *n_events);
/* The spec of NAME, NULL when NAME is not in the set. */
const RspEventSpec *rsp_probe_event_spec (const char *name);

/* Where perf is: $RSP_PERF when set (tests use it to simulate a missing
 * perf), else "perf" in PATH.  RSP_PROBE_ERROR_NO_PERF with the install
 * command when it is not there. */
char *rsp_probe_find_perf (const char *rsp_perf_env, const char *path_env, GError **error);

/* What decides whether this process may record the whole system. */
typedef struct {
  uid_t euid;
  gid_t egid;
  int perf_event_paranoid;  /* /proc/sys/kernel/perf_event_paranoid; 2 if unreadable */
  gboolean cap_perfmon;     /* CAP_PERFMON or CAP_SYS_ADMIN effective */
  gboolean tracefs_readable;/* tracepoint ids and formats can be read */
} RspPrivileges;

void rsp_probe_privileges_here (RspPrivileges *privileges, const char *tracefs);
/* System-wide tracepoint sampling with raw data needs root, CAP_PERFMON, or
 * perf_event_paranoid -1 together with read access to tracefs. */
gboolean rsp_probe_check_privileges (const RspPrivileges *privileges, GError **error);

/* Finds the mounted tracefs (/sys/kernel/tracing, else
 * /sys/kernel/debug/tracing).  When it is not mounted and MAY_MOUNT (root),
 * mounts it at /sys/kernel/tracing and sets *MOUNTED_NOW.  Returns the path
 * of the tracefs root. */
char *rsp_probe_tracefs (gboolean may_mount, gboolean *mounted_now, GError **error);

/* A tracepoint that is in the kernel, with its tracefs id. */
typedef struct {
  const char *name; /* static, from the event set */
  guint64 id;
} RspProbedEvent;

typedef struct {
  GArray *present;  /* RspProbedEvent, in event-set order */
  GArray *missing;  /* RspMissingEvent (rsp-recording.h): name and reason, owned */
} RspProbedEvents;

/* Checks every event of the set against TRACEFS/events/<sys>/<name>/id.
 * PRETEND_MISSING is a comma-separated list of event names to treat as
 * absent (RSP_RECORD_PRETEND_MISSING, for tests), may be NULL.  Fails only
 * when no tracepoint of the set can be used at all. */
gboolean rsp_probe_events (const char *tracefs, const char *pretend_missing,
                           RspProbedEvents *events, GError **error);
void rsp_probed_events_clear (RspProbedEvents *events);
/* The filter RSP records EVENT with ("family != 1"), or NULL when it
 * records it whole.  Data through a local socket (AF_UNIX: D-Bus, Wayland,
 * X11, a socketpair) goes from one task to another, and the wake-up of the
 * reader by the writer says all of it; the socket events serve the waits
 * on the network (a wake-up from its softirq, the last send before it, the
 * requests on a TCP port).  Recording a local socket's every send and
 * receive costs each of them an event, and the flood of them made perf
 * lose its sched_switch events (58% of them in `perf bench sched
 * messaging`).  NULL too where TRACEFS's format of EVENT has no such field
 * (the kernel and perf would refuse the filter), or where PRETEND_MISSING
 * (RSP_RECORD_PRETEND_MISSING) names "filter:family". */
const char *rsp_probe_event_filter (const char *tracefs, const char *event, const char *pretend_missing);

/* Whether NAME is one of the comma-separated names of PRETEND_MISSING
 * (NULL: none). */
gboolean rsp_probe_pretends_missing (const char *pretend_missing, const char *name);

/* Parses a kernel CPU list ("0-3,6,8-9") into CPU numbers; NULL if bad. */
GArray *rsp_probe_parse_cpu_list (const char *text);
/* The online CPUs (/sys/devices/system/cpu/online), at least CPU 0. */
GArray *rsp_probe_online_cpus (void);

/* The user who started rsp through sudo (SUDO_UID, SUDO_GID) or pkexec
 * (PKEXEC_UID), read from ENVP.  *GID is (gid_t) -1 when the environment
 * does not tell it (pkexec): take it from the passwd entry.  FALSE when
 * there is none, it is root, or the values are not numbers. */
gboolean rsp_probe_invoking_user (const char *const *envp, uid_t *uid, gid_t *gid);
/* The passwd entry of UID from getent(1)'s output ("name:x:uid:gid:gecos:
 * home:shell"): its name, group and home.  FALSE when TEXT is not one
 * such line for UID. */
gboolean rsp_probe_parse_passwd (const char *text, uid_t uid, char **name, gid_t *gid, char **home);
/* Appends to GROUPS (of gid_t) the group ids of id(1) -G's output (numbers
 * separated by spaces) that it does not hold yet.  FALSE, GROUPS as it was,
 * when TEXT holds no id or something else. */
gboolean rsp_probe_parse_groups (const char *text, GArray *groups);

G_END_DECLS
