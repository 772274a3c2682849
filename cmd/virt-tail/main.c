/*
 * virt-tail (upstream cmd/virt-tail): the launcher Pod's guest-console-log sidecar. It follows the guest's
 * serial console log and writes each complete line to stdout, so `kubectl logs -c guest-console-log` shows
 * it, until SIGTERM or SIGINT (exit 0).
 *
 *   virt-tail --logfile PATH [-v N]     (unknown flags are tolerated; VIRT_LAUNCHER_LOG_VERBOSITY wins over -v)
 *
 * Upstream is Go on top of pflag, kubevirt's JSON logger and github.com/nxadm/tail. This runs in every
 * launcher Pod and only tails a file, so it is a static C program costing well under a MiB rather than a
 * Node process (DESIGN.md's per-VM overhead target); no C library offers those three, so the parts
 * virt-tail uses are written here with their observable behaviour: messages, exit codes, and when a
 * truncated or replaced file is read again from its start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { GOING, STOPPED, DIED };

#define KV_COMPONENT "virt-tail"
#include "../../pkg/native/kvlog.h"


/* The time as Go's log package writes it (local time), which the tail library's own messages use. */
static const char *go_log_stamp(void) {
    static char stamp[32];
    time_t now = time(NULL);
    struct tm local;
    localtime_r(&now, &local);
    strftime(stamp, sizeof stamp, "%Y/%m/%d %H:%M:%S", &local);
    return stamp;
}

/* The tail library's fatal path: its message on stderr, then exit 1. */
static void fatal(const char *format, ...) {
    fprintf(stderr, "%s FATAL -- ", go_log_stamp());
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}


/* ---- command line: pflag's parsing of --logfile and the Go flag -v, unknown flags tolerated ---- */


static const char *program;
static const char *logfile = "";

static void usage(void) {
    fprintf(stderr, "Usage of %s:\n", program);
    fputs("      --logfile string   path of the logfile to be streamed\n", stderr);
    fputs("  -v, --v int            log level for V logs (default 2)\n", stderr);
}

/* pflag prints the usage first, then the error, and exits 2. */
static void bad_flag(const char *format, ...) {
    usage();
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(2);
}

static void set_flag(char name, const char *value) {
    if (name == 'l') {
        logfile = value;
        return;
    }
    long long level;
    int err = go_parse_int(value, 0, &level);
    if (err == 0) {
        verbosity = level;
        return;
    }
    usage();
    fputs("invalid argument ", stderr);
    go_quote(stderr, value);
    fprintf(stderr, " for \"-v, --v\" flag: %s\n", err == 1 ? "parse error" : "value out of range");
    exit(2);
}

/* An unknown flag without "=value" takes the next argument along, unless that looks like a flag. */
static int skip_unknown_value(int i, int argc, char **argv) {
    return i < argc && argv[i][0] != '-' ? i + 1 : i;
}

static void help(void) {
    usage();
    exit(0);
}

/* "--name[=value]" at argv[i-1]; returns the index of the next argument. */
static int long_flag(const char *arg, int i, int argc, char **argv) {
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (name[0] == '-' || name[0] == '=') bad_flag("bad flag syntax: %s", arg);
    char flag = len == 7 && strncmp(name, "logfile", 7) == 0 ? 'l' : len == 1 && name[0] == 'v' ? 'v' : 0;
    if (!flag) {
        if (len == 4 && strncmp(name, "help", 4) == 0) help();
        return eq ? i : skip_unknown_value(i, argc, argv);
    }
    if (eq) set_flag(flag, eq + 1);
    else if (i < argc) set_flag(flag, argv[i++]);
    else bad_flag("flag needs an argument: --%.*s", (int)len, name);
    return i;
}

/* "-abc": each letter in turn; as in pflag, each one looks at the arguments after the group afresh, and the
 * last letter decides which of them were used up. */
static int short_flags(const char *arg, int i, int argc, char **argv) {
    const char *shorts = arg + 1;
    int next = i;
    while (*shorts) {
        if (strncmp(shorts, "test.", 5) == 0) return i;
        if (shorts[0] != 'v') {
            if (shorts[0] == 'h') help();
            if (shorts[1] == '=' && shorts[2]) return i;
            next = skip_unknown_value(i, argc, argv);
            shorts++;
            continue;
        }
        if (shorts[1] == '=' && shorts[2]) set_flag('v', shorts + 2);
        else if (shorts[1]) set_flag('v', shorts + 1);
        else if (i < argc) set_flag('v', argv[i++]);
        else bad_flag("flag needs an argument: 'v' in -%s", shorts);
        return i;
    }
    return next;
}

static void parse_flags(int argc, char **argv) {
    for (int i = 1; i < argc;) {
        const char *arg = argv[i++];
        if (arg[0] != '-' || arg[1] == '\0') continue; /* positional arguments are ignored */
        if (arg[1] == '-' && arg[2] == '\0') return;  /* "--" ends the flags */
        i = arg[1] == '-' ? long_flag(arg, i, argc, argv) : short_flags(arg, i, argc, argv);
    }
}


/* ---- following the file: nxadm/tail with Follow, ReOpen, CompleteLines and MustExist off ---- */

#define WATCH_FLAGS \
    (IN_CREATE | IN_MODIFY | IN_DELETE | IN_DELETE_SELF | IN_MOVED_TO | IN_MOVED_FROM | IN_MOVE_SELF | IN_ATTRIB)

static int signal_fd = -1, inotify_fd = -1;

struct tail {
    int fd;
    long long pos;   /* bytes of the open file read so far */
    char *line;      /* the incomplete last line */
    size_t len, cap;
    char reason[PATH_MAX * 2 + 128];
    /* the watch on the open file, as the library's FileChanges: one pending note of each kind */
    int watching, wd, modified, truncated, deleted;
    long long size;  /* the file's size as last seen by the watch */
    int dir_wd, appeared;
};

static int died(struct tail *t, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(t->reason, sizeof t->reason, format, args);
    va_end(args);
    return DIED;
}

static int add_watch(const char *path) {
    if (inotify_fd < 0 && (inotify_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) < 0) fatal("failed to create Watcher");
    return inotify_add_watch(inotify_fd, path, WATCH_FLAGS);
}

static void remove_watch(int *wd) {
    if (*wd >= 0) inotify_rm_watch(inotify_fd, *wd);
    *wd = -1;
}

/* What a change of the followed file means, judged on its path: gone, shrunk, or grown. */
static void file_event(struct tail *t, const struct inotify_event *ev) {
    struct stat st;
    if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
        remove_watch(&t->wd);
        t->deleted = 1;
    } else if (ev->mask & (IN_MODIFY | IN_ATTRIB)) { /* an unlink while open shows as IN_ATTRIB */
        if (stat(logfile, &st) < 0) {
            if (errno != ENOENT) fatal("Failed to stat file %s: stat %s: %s", logfile, logfile, errtext(errno));
            remove_watch(&t->wd);
            t->deleted = 1;
            return;
        }
        long long before = t->size;
        t->size = st.st_size;
        if (before > 0 && before > t->size) t->truncated = 1;
        else t->modified = 1;
    }
}

/* Blocks until inotify has news or a stop signal came; hands the news to the file watch and the wait for
 * the file's creation. */
static int pump(struct tail *t, const char *base) {
    struct pollfd fds[2] = {{signal_fd, POLLIN, 0}, {inotify_fd, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return GOING;
    if (fds[0].revents) return STOPPED;
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n = read(inotify_fd, buf, sizeof buf);
    for (char *p = buf; n > 0 && p < buf + n;) {
        const struct inotify_event *ev = (const struct inotify_event *)p;
        p += sizeof *ev + ev->len;
        if (ev->mask & IN_Q_OVERFLOW)
            fprintf(stderr, "%s Error in Watcher Error channel: fsnotify: queue or buffer overflow\n", go_log_stamp());
        if (ev->wd == t->wd && t->watching && !t->deleted) file_event(t, ev);
        if (ev->wd == t->dir_wd && ev->len && base && strcmp(ev->name, base) == 0) t->appeared = 1;
    }
    return GOING;
}

/* Waits for the file to be created: watches its directory, which must exist (else the tail dies and is
 * started again a second later). */
static int until_exists(struct tail *t) {
    static char name[PATH_MAX], dir[PATH_MAX];
    snprintf(name, sizeof name, "%s", logfile);
    size_t n = strlen(name);
    while (n > 1 && name[n - 1] == '/') name[--n] = '\0';
    char *slash = strrchr(name, '/');
    const char *basename = slash ? slash + 1 : name;
    if (!slash) snprintf(dir, sizeof dir, ".");
    else snprintf(dir, sizeof dir, "%.*s", slash == name ? 1 : (int)(slash - name), name);
    if ((t->dir_wd = add_watch(dir)) < 0) return died(t, "Failed to detect creation of %s: %s", logfile, errtext(errno));
    struct stat st;
    int result = GOING;
    t->appeared = stat(logfile, &st) == 0; /* it may have come before the watch did */
    if (!t->appeared && errno != ENOENT)
        result = died(t, "Failed to detect creation of %s: stat %s: %s", logfile, logfile, errtext(errno));
    while (!t->appeared && result == GOING) result = pump(t, basename);
    remove_watch(&t->dir_wd);
    return result;
}

/* Opens the file afresh (waiting for it to exist), dropping any incomplete line. */
static int reopen(struct tail *t) {
    t->len = 0;
    if (t->fd >= 0) close(t->fd);
    for (;;) {
        t->fd = open(logfile, O_RDONLY | O_CLOEXEC);
        if (t->fd >= 0) break;
        if (errno != ENOENT) return died(t, "Unable to open file %s: open %s: %s", logfile, logfile, errtext(errno));
        int result = until_exists(t);
        if (result != GOING) return result;
    }
    t->pos = 0;
    return GOING;
}

/* At the end of the file: waits until it grows (read on), shrinks, or is moved or deleted (read it again
 * from its start). */
static int wait_for_changes(struct tail *t) {
    if (!t->watching) {
        if ((t->wd = add_watch(logfile)) < 0) return died(t, "%s", errtext(errno));
        t->watching = 1;
        t->modified = t->truncated = t->deleted = 0;
        t->size = t->pos;
    }
    for (;;) {
        if (t->truncated) {
            t->truncated = 0;
            return reopen(t);
        }
        if (t->modified) {
            t->modified = 0;
            return GOING;
        }
        if (t->deleted) {
            t->watching = 0;
            return reopen(t);
        }
        int result = pump(t, NULL);
        if (result != GOING) return result;
    }
}

/* Passes on the complete lines in the bytes just read, keeps the rest; *resume is where the next
 * tail starts should this one die: after the last line passed on. */
static void take(struct tail *t, const char *bytes, size_t n, long long *resume) {
    const char *last = memrchr(bytes, '\n', n);
    size_t keep = last ? n - (size_t)(last + 1 - bytes) : n, complete = n - keep;
    if (t->len + n > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n) cap *= 2;
        char *grown = realloc(t->line, cap);
        if (!grown) fatal("out of memory");
        t->line = grown;
        t->cap = cap;
    }
    memcpy(t->line + t->len, bytes, n);
    t->len += n;
    t->pos += (long long)n;
    if (!complete) return;
    write_all(1, t->line, t->len - keep);
    memmove(t->line, t->line + t->len - keep, keep);
    t->len = keep;
    *resume = t->pos - (long long)keep;
}

/* One tail of the file, from *resume on: GOING never, STOPPED on a signal, DIED with t->reason. */
static int follow(struct tail *t, long long *resume) {
    static char chunk[16384];
    int result = reopen(t);
    if (result != GOING) return result;
    if (lseek(t->fd, *resume, SEEK_SET) < 0)
        return died(t, "Seek error on %s: seek %s: %s", logfile, logfile, errtext(errno));
    t->pos = *resume;
    for (;;) {
        ssize_t n = read(t->fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        /* A read error counts as the end of the file, as with the library's CompleteLines (a directory
         * given as the log is watched for changes, not given up on). */
        if (n > 0) take(t, chunk, (size_t)n, resume);
        else if ((result = wait_for_changes(t)) != GOING) return result;
    }
}

int main(int argc, char **argv) {
    program = argc > 0 ? argv[0] : "virt-tail";
    parse_flags(argc, argv);
    env_verbosity(3);
    if (logfile[0] == '\0') {
        INFO_V(3, "logfile flags must be provided");
        return 1;
    }

    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigprocmask(SIG_BLOCK, &stop, NULL);
    signal_fd = signalfd(-1, &stop, SFD_CLOEXEC);

    /* A tail that dies (its directory missing, the file unreadable) is started again a second later,
     * where the last one's last line ended. */
    long long resume = 0;
    for (;;) {
        struct tail t = {.fd = -1, .wd = -1, .dir_wd = -1};
        int result = follow(&t, &resume);
        if (t.fd >= 0) close(t.fd);
        remove_watch(&t.wd);
        free(t.line);
        if (result == STOPPED) return 0;
        INFO_V(4, "tail error: chan closed");
        INFO_V(3, "tail error: %s", t.reason);
        /* Unlike upstream's plain sleep, a SIGTERM here ends it at once rather than after the pause. */
        struct pollfd signalled = {signal_fd, POLLIN, 0};
        if (poll(&signalled, 1, 1000) > 0) return 0;
    }
}
