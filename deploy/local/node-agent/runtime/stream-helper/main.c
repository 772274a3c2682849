/*
 * The node agent's helper for kubelet's streaming endpoints; node has neither pseudo-terminals nor a way
 * to open a socket inside another network namespace, and this runs where the agent puts it (spawned
 * through nsenter). Two modes:
 *
 *   stream-helper pty [--ptmx PATH] [--await-size MS] -- COMMAND...
 *     runs COMMAND on a new pseudo-terminal (its controlling terminal, in a new session) and relays
 *     stdin -> terminal and terminal -> stdout; fd 3 carries resize requests as "<cols> <rows>\n" lines.
 *     With --await-size COMMAND starts once the first size arrived (at most MS milliseconds later): a
 *     client with a terminal sends its size right after the streams open, and a command that asks for it
 *     at once (`stty size`, a full-screen program) must see the client's, not the kernel's 0x0.
 *     Exits with COMMAND's exit status (128 + signal when a signal ended it). With --ptmx the terminal is
 *     allocated from that multiplexer (a container's devpts instance, reached through /proc/PID/root) and
 *     its other side opened with TIOCGPTPEER, so inside the container it is /dev/pts/N of its own /dev.
 *
 *   stream-helper connect PORT
 *     connects to localhost:PORT (127.0.0.1, then ::1) in the current network namespace and relays
 *     stdin -> socket (half-closing the socket when stdin ends) and socket -> stdout, until the socket ends.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int write_all(int fd, const char *buf, ssize_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, (size_t)len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    buf += n;
    len -= n;
  }
  return 0;
}

/* Reads what fd `ctl` has and applies every whole line; returns what read returned (0: the sender is gone). */
static ssize_t apply_resizes(int master, char *pending, size_t *used, int ctl) {
  ssize_t n = read(ctl, pending + *used, 255 - *used);
  if (n <= 0) return n;
  *used += (size_t)n;
  pending[*used] = '\0';
  char *line = pending, *end;
  while ((end = strchr(line, '\n')) != NULL) {
    unsigned cols = 0, rows = 0;
    *end = '\0';
    if (sscanf(line, "%u %u", &cols, &rows) == 2) {
      struct winsize size = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
      ioctl(master, TIOCSWINSZ, &size);
    }
    line = end + 1;
  }
  *used = strlen(line);
  memmove(pending, line, *used);
  return n;
}

static int exit_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

/* Applies resize lines from fd 3 until one took effect or await_ms passed. */
static void await_first_size(int master, char *pending, size_t *used, int await_ms) {
  struct winsize initial = {0};
  ioctl(master, TIOCGWINSZ, &initial);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (elapsed >= await_ms) return;
    struct pollfd ctl = {3, POLLIN, 0};
    int ready = poll(&ctl, 1, (int)(await_ms - elapsed));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0 || !(ctl.revents & POLLIN)) return;
    if (apply_resizes(master, pending, used, 3) <= 0) return;
    struct winsize size = {0};
    ioctl(master, TIOCGWINSZ, &size);
    if (size.ws_row != initial.ws_row || size.ws_col != initial.ws_col) return;
  }
}

static int run_pty(const char *ptmx, int await_ms, char **argv) {
  int master = ptmx ? open(ptmx, O_RDWR | O_NOCTTY) : posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || (!ptmx && grantpt(master) < 0) || unlockpt(master) < 0) {
    fprintf(stderr, "stream-helper: cannot allocate a terminal from %s: %s\n", ptmx ? ptmx : "/dev/ptmx", strerror(errno));
    return 126;
  }
  char pending[256];
  size_t used = 0;
  int ctl_open = fcntl(3, F_GETFD) != -1;
  if (ctl_open && await_ms > 0) await_first_size(master, pending, &used, await_ms);
  char *slave_name = ptsname(master);
  pid_t child = fork();
  if (child < 0) {
    perror("stream-helper: fork");
    return 126;
  }
  if (child == 0) {
    setsid();
    int slave = ptmx ? ioctl(master, TIOCGPTPEER, O_RDWR) : open(slave_name, O_RDWR);
    if (slave < 0) _exit(126);
    ioctl(slave, TIOCSCTTY, 0);
    dup2(slave, 0);
    dup2(slave, 1);
    dup2(slave, 2);
    if (slave > 2) close(slave);
    close(master);
    close(3);
    signal(SIGPIPE, SIG_DFL);
    execvp(argv[0], argv);
    fprintf(stderr, "stream-helper: exec %s: %s\n", argv[0], strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
  }
  char buf[16384];
  int stdin_open = 1;
  for (;;) {
    struct pollfd fds[3] = {{master, POLLIN, 0}, {stdin_open ? 0 : -1, POLLIN, 0}, {ctl_open ? 3 : -1, POLLIN, 0}};
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(master, buf, sizeof buf);
      /* EIO: every holder of the terminal's other side is gone. */
      if (n <= 0) break;
      if (write_all(1, buf, n) < 0) break;
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(0, buf, sizeof buf);
      if (n <= 0) stdin_open = 0;
      else write_all(master, buf, n);
    }
    if (fds[2].revents & (POLLIN | POLLHUP | POLLERR)) {
      if (apply_resizes(master, pending, &used, 3) <= 0) ctl_open = 0;
    }
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return exit_status(status);
}

static int connect_local(unsigned port, char *error, size_t error_len) {
  struct sockaddr_in v4 = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
  v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd >= 0 && connect(fd, (struct sockaddr *)&v4, sizeof v4) == 0) return fd;
  int v4_errno = errno;
  if (fd >= 0) close(fd);
  struct sockaddr_in6 v6 = {.sin6_family = AF_INET6, .sin6_port = htons((unsigned short)port), .sin6_addr = in6addr_loopback};
  fd = socket(AF_INET6, SOCK_STREAM, 0);
  if (fd >= 0 && connect(fd, (struct sockaddr *)&v6, sizeof v6) == 0) return fd;
  snprintf(error, error_len, "failed to connect to localhost:%u inside namespace, IPv4: dial tcp4 127.0.0.1:%u: connect: %s IPv6 dial tcp6 [::1]:%u: connect: %s",
           port, port, strerror(v4_errno), port, strerror(errno));
  if (fd >= 0) close(fd);
  return -1;
}

static int run_connect(const char *port_text) {
  char *end;
  unsigned long port = strtoul(port_text, &end, 10);
  if (*port_text == '\0' || *end != '\0' || port == 0 || port > 65535) {
    fprintf(stderr, "stream-helper: invalid port %s\n", port_text);
    return 2;
  }
  char error[512];
  int sock = connect_local((unsigned)port, error, sizeof error);
  if (sock < 0) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  char buf[16384];
  int stdin_open = 1;
  for (;;) {
    struct pollfd fds[2] = {{sock, POLLIN, 0}, {stdin_open ? 0 : -1, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(sock, buf, sizeof buf);
      if (n <= 0) return 0;
      if (write_all(1, buf, n) < 0) return 0;
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(0, buf, sizeof buf);
      if (n <= 0) {
        stdin_open = 0;
        shutdown(sock, SHUT_WR);
      } else if (write_all(sock, buf, n) < 0) {
        return 0;
      }
    }
  }
}

int main(int argc, char **argv) {
  signal(SIGPIPE, SIG_IGN);
  if (argc >= 2 && strcmp(argv[1], "pty") == 0) {
    const char *ptmx = NULL;
    int await_ms = 0, i = 2;
    for (; i + 1 < argc && strcmp(argv[i], "--") != 0; i += 2) {
      if (strcmp(argv[i], "--ptmx") == 0) ptmx = argv[i + 1];
      else if (strcmp(argv[i], "--await-size") == 0) await_ms = atoi(argv[i + 1]);
      else break;
    }
    if (i + 1 < argc && strcmp(argv[i], "--") == 0) return run_pty(ptmx, await_ms, argv + i + 1);
  }
  if (argc == 3 && strcmp(argv[1], "connect") == 0) return run_connect(argv[2]);
  fprintf(stderr, "usage: stream-helper pty [--ptmx PATH] [--await-size MS] -- COMMAND... | stream-helper connect PORT\n");
  return 2;
}
