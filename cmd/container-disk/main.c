/*
 * container-disk: the process a containerDisk container runs (upstream cmd/container-disk-v2alpha).
 * The disk image lives in the container's root; the process only has to exist, so that virt-handler can
 * find the container (and with it the image) through a unix socket the process listens on.
 *
 *   container-disk --no-op            exit at once (the init container that makes the image pulled)
 *   container-disk --copy-path PATH   listen on PATH.sock until SIGTERM or until PATH.sock is removed
 *
 * It runs in a chroot of the disk image, which holds no libc: build it statically.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SOCKET_SUFFIX ".sock"
#define BACKLOG 50

static char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static volatile sig_atomic_t terminated = 0;

static void on_term(int signo) {
    (void)signo;
    terminated = 1;
}

static void fail(const char *what) {
    fprintf(stderr, "container-disk: %s: %s\n", what, errno ? strerror(errno) : "invalid argument");
    exit(1);
}

static void usage(void) {
    fprintf(stderr, "usage: container-disk --no-op | --copy-path PATH\n");
    exit(1);
}

/* Creates the directory holding the socket when the volume does not have it yet. */
static void ensure_parent(const char *path) {
    char dir[sizeof(socket_path)];
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir) return;
    *slash = '\0';
    struct stat st;
    if (stat(dir, &st) == 0) return;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) fail(dir);
}

static int listen_on(const char *path) {
    struct sockaddr_un address;
    memset(&address, 0, sizeof(address));
    address.sun_family = AF_UNIX;
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) fail("socket");
    unlink(path); /* a socket left by an earlier instance of this container */
    if (bind(fd, (struct sockaddr *)&address, sizeof(address)) != 0) fail(path);
    if (listen(fd, BACKLOG) != 0) fail(path);
    return fd;
}

/* Accepts and drops connections (a full queue would stall the peer), and stops once the socket is gone:
 * removing it is how the rest of the system can end the container without a signal. */
static void serve(int fd) {
    struct timespec pause = {1, 0};
    while (!terminated) {
        int conn = accept(fd, NULL, NULL);
        if (conn >= 0) {
            close(conn);
            continue;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) fail("accept");
        struct stat st;
        if (stat(socket_path, &st) != 0) {
            fprintf(stderr, "container-disk: %s is gone, exiting\n", socket_path);
            return;
        }
        nanosleep(&pause, NULL);
    }
    unlink(socket_path);
}

int main(int argc, char **argv) {
    const char *copy_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-op") == 0) return 0;
        if (strcmp(argv[i], "--copy-path") == 0 && i + 1 < argc) {
            copy_path = argv[++i];
        } else if (strncmp(argv[i], "--copy-path=", 12) == 0) {
            copy_path = argv[i] + 12;
        } else {
            usage();
        }
    }
    if (copy_path == NULL || copy_path[0] == '\0') usage();
    if (strlen(copy_path) + strlen(SOCKET_SUFFIX) >= sizeof(socket_path)) {
        errno = ENAMETOOLONG;
        fail("copy path");
    }
    snprintf(socket_path, sizeof(socket_path), "%s%s", copy_path, SOCKET_SUFFIX);

    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = on_term;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGTERM, &action, NULL) != 0 || sigaction(SIGINT, &action, NULL) != 0) fail("sigaction");

    ensure_parent(socket_path);
    serve(listen_on(socket_path));
    return 0;
}
