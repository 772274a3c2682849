// A small sudo for the test guest (installed setuid root at /usr/bin/sudo): the cloud images the
// guest stands in for let their default user (cirros, fedora) run anything as root without a
// password, and upstream's console helpers rely on that (`sudo dmesg -n 1`, `sudo su`).
//
//   sudo [-u USER] [-i | -s] [-E] [-H] [-n] [-k] [-v] [--] [COMMAND [ARG...]]
//
// Who may: root and the members of group "wheel" (NOPASSWD, as in those images). The environment
// is kept except PATH (a secure path), HOME/USER/LOGNAME/SHELL (the target's) and the SUDO_*
// variables sudo sets. -i runs the target's login shell in its home, -s its shell; with a command
// either one runs it through `shell -c`. Accounts are read from /etc/passwd and /etc/group directly
// (the guest has no NSS configuration to speak of, and a static binary should not need one).
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SECURE_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define SUDO_GROUP "wheel"
#define MAX_GROUPS 64

struct account {
  char name[64];
  uid_t uid;
  gid_t gid;
  char home[256];
  char shell[256];
};

static void die(const char *message) {
  fprintf(stderr, "sudo: %s\n", message);
  exit(1);
}

// Splits a colon-separated line into at most max fields (in place); returns the count.
static int split_fields(char *line, char **fields, int max) {
  int count = 0;
  line[strcspn(line, "\n")] = '\0';
  fields[count++] = line;
  for (char *p = line; *p && count < max; p++) {
    if (*p == ':') {
      *p = '\0';
      fields[count++] = p + 1;
    }
  }
  return count;
}

// Finds an account by name (name != NULL) or by uid in /etc/passwd.
static int find_account(const char *name, uid_t uid, struct account *out) {
  FILE *file = fopen("/etc/passwd", "r");
  char line[1024];
  char *f[7];
  int found = 0;
  if (!file) return 0;
  while (!found && fgets(line, sizeof line, file)) {
    if (split_fields(line, f, 7) < 7) continue;
    uid_t line_uid = (uid_t)strtoul(f[2], NULL, 10);
    if (name ? strcmp(f[0], name) != 0 : line_uid != uid) continue;
    snprintf(out->name, sizeof out->name, "%s", f[0]);
    out->uid = line_uid;
    out->gid = (gid_t)strtoul(f[3], NULL, 10);
    snprintf(out->home, sizeof out->home, "%s", f[5]);
    snprintf(out->shell, sizeof out->shell, "%s", f[6][0] ? f[6] : "/bin/sh");
    found = 1;
  }
  fclose(file);
  return found;
}

static int has_member(char *members, const char *user) {
  for (char *member = strtok(members, ","); member; member = strtok(NULL, ",")) {
    if (strcmp(member, user) == 0) return 1;
  }
  return 0;
}

// The supplementary groups of an account (its primary group first); returns the count.
// With only_group set, returns 1 if the account is in that group, else 0.
static int account_groups(const struct account *account, gid_t *groups, const char *only_group) {
  FILE *file = fopen("/etc/group", "r");
  char line[1024];
  char *f[4];
  int count = 0;
  if (!only_group) groups[count++] = account->gid;
  if (!file) return count;
  while (fgets(line, sizeof line, file)) {
    if (split_fields(line, f, 4) < 4) continue;
    gid_t gid = (gid_t)strtoul(f[2], NULL, 10);
    int member = gid == account->gid || has_member(f[3], account->name);
    if (only_group) {
      if (strcmp(f[0], only_group) == 0 && member) count = 1;
    } else if (member && gid != account->gid && count < MAX_GROUPS) {
      groups[count++] = gid;
    }
  }
  fclose(file);
  return count;
}

// "a b" 'c' -> a\ b c: the words of a command for `shell -c`, as sudo -i/-s quotes them.
static char *join_escaped(char **words) {
  size_t size = 1;
  for (char **w = words; *w; w++) size += 2 * strlen(*w) + 1;
  char *out = malloc(size), *p = out;
  if (!out) die("out of memory");
  for (char **w = words; *w; w++) {
    if (w != words) *p++ = ' ';
    for (const char *c = *w; *c; c++) {
      if (!(*c == '_' || *c == '-' || *c == '$' || *c == '/' || *c == '.' || *c == '=' ||
            (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
        *p++ = '\\';
      *p++ = *c;
    }
  }
  *p = '\0';
  return out;
}

static void usage(void) {
  fputs("usage: sudo [-u user] [-i | -s] [-EHnkv] [--] [command [arg ...]]\n", stderr);
  exit(1);
}

int main(int argc, char **argv) {
  const char *target_name = "root";
  int login = 0, shell = 0, validate = 0, option;
  while ((option = getopt(argc, argv, "+u:isEHnkv")) != -1) {
    switch (option) {
      case 'u': target_name = optarg; break;
      case 'i': login = 1; break;
      case 's': shell = 1; break;
      case 'v': validate = 1; break;
      case 'E': case 'H': case 'n': case 'k': break; // nothing to ask, nothing cached
      default: usage();
    }
  }
  char **command = argv + optind;
  if (!*command && !login && !shell && !validate) usage();

  struct account caller, target;
  if (!find_account(NULL, getuid(), &caller)) die("you do not exist in the passwd database");
  if (caller.uid != 0 && !account_groups(&caller, NULL, SUDO_GROUP)) {
    fprintf(stderr, "%s is not in the sudoers file.\n", caller.name);
    return 1;
  }
  if (validate) return 0;
  if (!find_account(target_name, 0, &target)) {
    fprintf(stderr, "sudo: unknown user %s\n", target_name);
    return 1;
  }

  gid_t groups[MAX_GROUPS + 1];
  int group_count = account_groups(&target, groups, NULL);
  if (setgroups((size_t)group_count, groups) != 0 || setgid(target.gid) != 0 || setuid(target.uid) != 0)
    die("cannot change to the target user (is sudo installed setuid root?)");

  char caller_uid[16], caller_gid[16];
  snprintf(caller_uid, sizeof caller_uid, "%u", (unsigned)caller.uid);
  snprintf(caller_gid, sizeof caller_gid, "%u", (unsigned)caller.gid);
  setenv("PATH", SECURE_PATH, 1);
  setenv("HOME", target.home, 1);
  setenv("USER", target.name, 1);
  setenv("LOGNAME", target.name, 1);
  setenv("SHELL", target.shell, 1);
  setenv("SUDO_USER", caller.name, 1);
  setenv("SUDO_UID", caller_uid, 1);
  setenv("SUDO_GID", caller_gid, 1);
  if (*command) setenv("SUDO_COMMAND", command[0], 1);

  if (login || shell) {
    if (login && chdir(target.home) != 0) fprintf(stderr, "sudo: cannot chdir to %s\n", target.home);
    const char *base = strrchr(target.shell, '/') ? strrchr(target.shell, '/') + 1 : target.shell;
    char argv0[260];
    snprintf(argv0, sizeof argv0, "%s%s", login ? "-" : "", base);
    if (*command) execl(target.shell, argv0, "-c", join_escaped(command), (char *)NULL);
    else execl(target.shell, argv0, (char *)NULL);
    fprintf(stderr, "sudo: %s: %s\n", target.shell, strerror(errno));
    return 1;
  }
  execvp(command[0], command);
  fprintf(stderr, "sudo: %s: command not found\n", command[0]);
  return 1;
}
