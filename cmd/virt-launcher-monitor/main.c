/*
 * virt-launcher-monitor (upstream cmd/virt-launcher-monitor): the compute container's entry point. It starts
 * /usr/bin/virt-launcher (beside itself) with its own arguments less --keep-after-failure, forwards SIGINT,
 * SIGTERM and SIGQUIT to it as SIGTERM, reaps it, and once it is gone: dumps QEMU's log files into the
 * container's log, stops a QEMU still running (SIGTERM, then up to 10 s), removes the container-disk
 * sockets, and exits with the launcher's exit code — or, with --keep-after-failure and a failed launcher,
 * stays until killed so the pod can be inspected.
 *
 *   virt-launcher-monitor [--keep-after-failure] [--container-disk-dir DIR] [--uid UID] [-v N] <launcher flags>
 *
 * Upstream's is a small Go program; this one runs in every launcher Pod, so it is a static C program costing
 * well under a MiB rather than a second Node process (DESIGN.md's per-VM overhead target). Upstream finds
 * QEMU by name in the pod's own PID namespace; pods here may share the node's, so QEMU is found by the pid
 * files libvirt keeps in this pod's runtime dir (--run-dir, default /var/run, as the launcher's flag).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KV_COMPONENT "virt-launcher-monitor"
#include "../../pkg/native/kvlog.h"

#define ERROR(...) log_line("error", 0, __LINE__, __VA_ARGS__)

extern char **environ;

static const char *container_disk_dir = "/var/run/kubevirt/container-disks";
static const char *run_dir = "/var/run";
static const char *private_dir = "/var/run/kubevirt-private";
static int keep_after_failure;

/* Go's strconv.ParseBool, as pflag reads a bool flag's value. */
static int parse_bool(const char *value, int *out) {
    static const char *yes[] = {"1", "t", "T", "TRUE", "true", "True"}, *no[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (strcmp(value, yes[i]) == 0) return *out = 1, 0;
        if (strcmp(value, no[i]) == 0) return *out = 0, 0;
    }
    return -1;
}

static void bad_int(const char *value) {
    fputs("invalid argument ", stderr);
    go_quote(stderr, value);
    fputs(" for \"-v, --v\" flag: parse error\n", stderr);
    exit(2);
}

/* The flags this program reads; every other flag is the launcher's and passes through untouched. */
static void parse_flags(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) return;
        if (arg[0] != '-') continue;
        const char *name = arg + (arg[1] == '-' ? 2 : 1), *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const char *inline_value = eq ? eq + 1 : NULL;
#define IS(flag) (len == strlen(flag) && strncmp(name, flag, len) == 0)
        if (IS("keep-after-failure") && arg[1] == '-') {
            if (inline_value && parse_bool(inline_value, &keep_after_failure) != 0) {
                fputs("invalid argument ", stderr);
                go_quote(stderr, inline_value);
                fputs(" for \"--keep-after-failure\" flag: strconv.ParseBool: parsing ", stderr);
                go_quote(stderr, inline_value);
                fputs(": invalid syntax\n", stderr);
                exit(2);
            }
            if (!inline_value) keep_after_failure = 1;
            continue;
        }
        const char **target = IS("container-disk-dir") ? &container_disk_dir
                              : IS("run-dir")            ? &run_dir
                              : IS("kubevirt-private-dir") ? &private_dir
                                                           : NULL;
        int is_v = IS("v");
#undef IS
        if (!target && !is_v) continue;
        const char *value = inline_value ? inline_value : i + 1 < argc ? argv[++i] : NULL;
        if (!value) {
            fprintf(stderr, "flag needs an argument: %s\n", arg);
            exit(2);
        }
        if (target) *target = value;
        else if (go_parse_int(value, 0, &verbosity) != 0)
            bad_int(value);
    }
}


/* virt-launcher beside this program, as upstream's image has both in /usr/bin. */
static char *launcher_path(const char *self) {
    static char path[PATH_MAX];
    const char *slash = strrchr(self, '/');
    if (!slash) return "/usr/bin/virt-launcher";
    snprintf(path, sizeof path, "%.*s/virt-launcher", (int)(slash - self), self);
    return path;
}

static sigset_t handled;

static pid_t start_launcher(int argc, char **argv) {
    char **args = calloc((size_t)argc + 1, sizeof *args);
    int n = 0;
    args[n++] = "virt-launcher";
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--keep-after-failure") != 0) args[n++] = argv[i];
    args[n] = NULL;
    posix_spawnattr_t attr;
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int err = posix_spawn(&pid, launcher_path(argv[0]), NULL, &attr, args, environ);
    posix_spawnattr_destroy(&attr);
    free(args);
    if (err != 0) {
        ERROR("failed to run virt-launcher: fork/exec %s: %s", launcher_path(argv[0]), errtext(err));
        return -1;
    }
    return pid;
}

/* Go's WaitStatus.ExitStatus(): the exit code, or -1 for a process ended by a signal. */
static int exit_status(int wstatus) {
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
}

/* Reaps children until the launcher's end is seen, forwarding stop signals to it meanwhile. */
static int monitor(pid_t launcher) {
    for (;;) {
        siginfo_t info;
        int sig = sigwaitinfo(&handled, &info);
        if (sig < 0) continue;
        if (sig != SIGCHLD) {
            INFO_V(0, "signalling virt-launcher to shut down");
            if (kill(launcher, SIGTERM) != 0)
                ERROR("received signal %s but can't signal virt-launcher to shut down", strsignal(sig));
            continue;
        }
        for (;;) {
            int wstatus;
            pid_t reaped = waitpid(-1, &wstatus, WNOHANG);
            if (reaped <= 0) break;
            INFO_V(4, "Reaped pid %d with status %d", (int)reaped, wstatus);
            if (reaped == launcher) {
                INFO_V(0, "Reaped Launcher main pid");
                return exit_status(wstatus);
            }
        }
    }
}

static void dump_log_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno != ENOENT) ERROR("failed to open file %s", path);
        return;
    }
    INFO_V(0, "dump log file: %s", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n') line[n - 1] = '\0';
        INFO_V(0, "%s", line);
    }
    free(line);
    fclose(f);
}

static void dump_qemu_logs(void) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/libvirt/qemu/log", private_dir);
    DIR *d = opendir(dir);
    if (!d) {
        ERROR("failed to read qemu log directory: open %s: %s", dir, errtext(errno));
        return;
    }
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        dump_log_file(path);
    }
    closedir(d);
}

/* The pid of a QEMU libvirt started in this pod, from its pid files; 0 when none runs. */
static pid_t running_qemu(void) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/libvirt/qemu/run", run_dir);
    DIR *d = opendir(dir);
    if (!d) return 0;
    pid_t found = 0;
    for (struct dirent *e; !found && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".pid") != 0) continue;
        char path[PATH_MAX * 2], comm[64] = "";
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        long pid = 0;
        if (!f) continue;
        if (fscanf(f, "%ld", &pid) != 1) pid = 0;
        fclose(f);
        snprintf(path, sizeof path, "/proc/%ld/comm", pid);
        if (pid <= 0 || !(f = fopen(path, "r"))) continue;
        if (!fgets(comm, sizeof comm, f)) comm[0] = '\0';
        fclose(f);
        if (strncmp(comm, "qemu-system", 11) == 0 || strncmp(comm, "qemu-kvm", 8) == 0) found = (pid_t)pid;
    }
    closedir(d);
    return found;
}

/* 0 when no QEMU is left, 1 when one outlived SIGTERM by 10 s. */
static int stop_qemu(void) {
    pid_t pid = running_qemu();
    if (pid <= 0) return 0;
    INFO_V(0, "Killing QEMU gracefully.");
    if (kill(pid, SIGTERM) != 0) return 1;
    for (int second = 0; second < 10; second++) {
        if (running_qemu() == 0) return 0;
        sleep(1);
    }
    return running_qemu() == 0 ? 0 : 1;
}

/* The container-disk sockets (*.sock) of this pod; the disks' own pods go on without them. */
static void cleanup_container_disk_directory(void) {
    DIR *d = opendir(container_disk_dir);
    if (!d) {
        if (errno != ENOENT) ERROR("could not clean up ephemeral disk directory: %s", container_disk_dir);
        return;
    }
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".sock") != 0) continue;
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", container_disk_dir, e->d_name);
        if (unlink(path) != 0 && errno != ENOENT)
            ERROR("could not clean up ephemeral disk directory: %s", container_disk_dir);
    }
    closedir(d);
}

int main(int argc, char **argv) {
    parse_flags(argc, argv);
    env_verbosity(2);
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGQUIT);
    sigprocmask(SIG_BLOCK, &handled, NULL);

    int exit_code = 1, failed = 0;
    pid_t launcher = start_launcher(argc, argv);
    if (launcher < 0) {
        failed = 1;
    } else {
        exit_code = monitor(launcher);
        if (exit_code != 0) ERROR("dirty virt-launcher shutdown: exit-code %d", exit_code);
        dump_qemu_logs();
        if (stop_qemu() != 0) exit_code = 1, failed = 1;
    }
    cleanup_container_disk_directory();

    if (keep_after_failure && (exit_code != 0 || failed)) {
        INFO_V(0, "keeping virt-launcher container alive since --keep-after-failure is set to true");
        for (;;) pause(); /* the stop signals stay blocked: only SIGKILL ends it, as upstream's */
    }
    if (failed) ERROR("monitoring virt-launcher failed");
    INFO_V(0, "virt-launcher-monitor: Exiting...");
    return exit_code == -1 ? 255 : exit_code;
}
