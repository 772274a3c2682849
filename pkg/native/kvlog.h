/*
 * What kubevirt-ts's small C programs (cmd/virt-tail, cmd/virt-launcher-monitor) share to behave like
 * upstream's Go programs: kubevirt's client-go/log JSON lines on stderr, and the Go library behaviour their
 * flags and messages show (strconv.ParseInt, %q, errno texts). Each program defines KV_COMPONENT (its name
 * in the log lines) before including this; everything here is static, one copy per program.
 */
#ifndef KUBEVIRT_TS_KVLOG_H
#define KUBEVIRT_TS_KVLOG_H
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef KV_COMPONENT
#error "define KV_COMPONENT before including kvlog.h"
#endif

static long long verbosity = 2; /* the logger's V() threshold: 2 unless -v or the env var say otherwise */

/* One UTF-8 sequence as Go decodes it: the rune, or -1 for an invalid byte (then *size is 1). */
static long decode_rune(const unsigned char *s, size_t n, int *size) {
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    *size = 1;
    if (c < 0x80) return c;
    if (c < 0xC2 || c > 0xF4) return -1;
    int more = c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
    if (n <= (size_t)more) return -1;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F; /* no surrogates */
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F; /* nothing past U+10FFFF */
    if (s[1] < lo || s[1] > hi) return -1;
    long r = c & (0x3F >> more);
    for (int k = 1; k <= more; k++) {
        if (k > 1 && (s[k] < 0x80 || s[k] > 0xBF)) return -1;
        r = (r << 6) | (s[k] & 0x3F);
    }
    *size = more + 1;
    return r;
}

/* A JSON string as Go's encoding/json writes it with HTML escaping off. */
static void json_string(FILE *out, const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text);
    fputc('"', out);
    for (size_t i = 0; i < n;) {
        int size;
        long r = decode_rune(s + i, n - i, &size);
        if (r == '"' || r == '\\') fprintf(out, "\\%c", (int)r);
        else if (r == '\b') fputs("\\b", out);
        else if (r == '\f') fputs("\\f", out);
        else if (r == '\n') fputs("\\n", out);
        else if (r == '\r') fputs("\\r", out);
        else if (r == '\t') fputs("\\t", out);
        else if (r >= 0 && r < 0x20) fprintf(out, "\\u%04lx", r);
        else if (r < 0) fputs("\\ufffd", out);
        else if (r == 0x2028 || r == 0x2029) fprintf(out, "\\u%04lx", r);
        else fwrite(s + i, 1, size, out);
        i += size;
    }
    fputc('"', out);
}

static void write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return; /* as Go's fmt.Println: a failed write is not an error of virt-tail's */
        p += w;
        n -= (size_t)w;
    }
}

/* level "info" is shown when v <= verbosity; warnings always. */
static void log_line(const char *level, int v, int line, const char *format, ...) {
    if (strcmp(level, "info") == 0 && v > verbosity) return;
    char *msg = NULL, *out = NULL, stamp[32];
    size_t len = 0;
    va_list args;
    va_start(args, format);
    if (vasprintf(&msg, format, args) < 0) msg = NULL;
    va_end(args);
    struct timespec now;
    struct tm utc;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &utc);
    size_t at = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
    snprintf(stamp + at, sizeof stamp - at, ".%06ldZ", now.tv_nsec / 1000);
    FILE *f = open_memstream(&out, &len);
    if (!f || !msg) return;
    fprintf(f, "{\"component\":\"%s\",\"level\":\"%s\",\"msg\":", KV_COMPONENT, level);
    json_string(f, msg);
    fprintf(f, ",\"pos\":\"main.c:%d\",\"timestamp\":\"%s\"}\n", line, stamp);
    fclose(f);
    write_all(2, out, len);
    free(out);
    free(msg);
}
#define INFO_V(v, ...) log_line("info", v, __LINE__, __VA_ARGS__)
#define WARNING(...) log_line("warning", 0, __LINE__, __VA_ARGS__)

/* Go spells errno texts in lower case ("no such file or directory"). */
static const char *errtext(int err) {
    static char text[128];
    snprintf(text, sizeof text, "%s", strerror(err));
    if (text[0] >= 'A' && text[0] <= 'Z' && !(text[1] >= 'A' && text[1] <= 'Z')) text[0] += 'a' - 'A';
    return text;
}

/* Go's strconv.ParseInt(s, base, 64): 0 ok, 1 syntax error, 2 out of range. Base 0 allows 0x/0o/0b/0
 * prefixes and underscores between digits, as Go's flag package parses -v. */
static int go_parse_int(const char *s0, int base, long long *out) {
    const char *s = s0;
    int neg = 0;
    if (*s == '+' || *s == '-') neg = *s++ == '-';
    const char *digits = s;
    int base0 = base == 0, underscores = 0;
    if (*s == '\0') return 1;
    if (base0) {
        base = 10;
        if (s[0] == '0') {
            char p = s[1] | 0x20;
            if (strlen(s) >= 3 && (p == 'b' || p == 'o' || p == 'x')) base = p == 'b' ? 2 : p == 'o' ? 8 : 16, s += 2;
            else base = 8, s += 1;
        }
    }
    unsigned long long n = 0, limit = neg ? (1ULL << 63) : (1ULL << 63) - 1;
    for (; *s; s++) {
        int d;
        char c = *s, l = c | 0x20;
        if (c == '_' && base0) {
            underscores = 1;
            continue;
        }
        if (c >= '0' && c <= '9') d = c - '0';
        else if (l >= 'a' && l <= 'z') d = l - 'a' + 10;
        else return 1;
        if (d >= base) return 1;
        if (n > (ULLONG_MAX - (unsigned)d) / (unsigned)base) return 2;
        n = n * base + d;
    }
    if (underscores) { /* each underscore between digits (or after the base prefix) */
        char saw = '^';
        const char *p = digits;
        int hex = 0;
        if (p[0] == '0' && strlen(p) >= 2 && strchr("bBoOxX", p[1])) saw = '0', hex = (p[1] | 0x20) == 'x', p += 2;
        for (; *p; p++) {
            char l = *p | 0x20;
            if ((*p >= '0' && *p <= '9') || (hex && l >= 'a' && l <= 'f')) saw = '0';
            else if (*p == '_') {
                if (saw != '0') return 1;
                saw = '_';
            } else {
                if (saw == '_') return 1;
                saw = '!';
            }
        }
        if (saw == '_') return 1;
    }
    if (n > limit) return 2;
    *out = neg ? (long long)(0 - n) : (long long)n;
    return 0;
}

/* Go's %q of a string, for flag values in error messages. Beyond ASCII only the common non-printable
 * runes (C1 controls, Unicode spaces and format marks) are escaped; Go's full table is not worth carrying. */
static void go_quote(FILE *out, const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text);
    fputc('"', out);
    for (size_t i = 0; i < n;) {
        int size;
        long r = decode_rune(s + i, n - i, &size);
        const char *esc = r > 0 && r < 0x20 ? strchr("\a\b\f\n\r\t\v", (int)r) : NULL;
        if (r < 0) fprintf(out, "\\x%02x", s[i]);
        else if (r == '"' || r == '\\') fprintf(out, "\\%c", (int)r);
        else if (esc) fprintf(out, "\\%c", "abfnrtv"[esc - "\a\b\f\n\r\t\v"]);
        else if (r < 0x20 || r == 0x7f) fprintf(out, "\\x%02lx", r);
        else if ((r >= 0x80 && r <= 0xA0) || r == 0xAD || (r >= 0x2000 && r <= 0x200F) ||
                 (r >= 0x2028 && r <= 0x202F) || (r >= 0x205F && r <= 0x206F) || r == 0x3000 || r == 0xFEFF)
            fprintf(out, "\\u%04lx", r);
        else fwrite(s + i, 1, size, out);
        i += size;
    }
    fputc('"', out);
}

/* VIRT_LAUNCHER_LOG_VERBOSITY, set by the launcher Pod's renderer, overrides -v (Go's strconv.Atoi); the
 * program says so at its own V level `v`. */
static void env_verbosity(int v) {
    const char *value = getenv("VIRT_LAUNCHER_LOG_VERBOSITY");
    long long level;
    if (!value) return;
    if (go_parse_int(value, 10, &level) != 0) {
        WARNING("failed to set log verbosity. The value of logVerbosity label should be an integer, got %s instead.",
                value);
        return;
    }
    if (level >= 0) verbosity = level; /* the logger refuses a negative one silently */
    INFO_V(v, "set log verbosity to %lld", level);
}

#endif
