/* shape_host: the smallest useful plugline host, in C, through the stable C ABI.
 *
 *   some-command 2>&1 | shape_host [--exit-code N] COMMAND [ARG...]
 *
 * Reads a command's output from standard input, asks plugline to shape it as if COMMAND (with
 * exit code N, if given) had printed it, and prints what the model would be shown. The full
 * output is stored under $PLUGLINE_HOME/outputs (default ~/.plugline/outputs); which shaper
 * ran, the token counts and the stored file are reported on standard error.
 *
 * Example:
 *   seq 1 400 | shape_host ./build.sh
 *
 * Everything here is <plugline/plugline.h>: create a host, shape, read the JSON result, free. */
#include <plugline/plugline.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads all of standard input. Returns a malloc'ed buffer (not NUL-terminated) or NULL. */
static char *read_all(FILE *in, size_t *out_len) {
  size_t cap = 64 * 1024, len = 0;
  char *buf = malloc(cap);
  if (buf == NULL) return NULL;
  for (;;) {
    size_t n = fread(buf + len, 1, cap - len, in);
    len += n;
    if (len < cap) {
      if (ferror(in)) {
        free(buf);
        return NULL;
      }
      break; /* end of input */
    }
    {
      char *bigger = realloc(buf, cap * 2);
      if (bigger == NULL) {
        free(buf);
        return NULL;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  *out_len = len;
  return buf;
}

/* Appends the UTF-8 encoding of code point `cp` to out[*len]. */
static void put_utf8(char *out, size_t *len, unsigned long cp) {
  if (cp < 0x80) {
    out[(*len)++] = (char)cp;
  } else if (cp < 0x800) {
    out[(*len)++] = (char)(0xC0 | (cp >> 6));
    out[(*len)++] = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out[(*len)++] = (char)(0xE0 | (cp >> 12));
    out[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[(*len)++] = (char)(0x80 | (cp & 0x3F));
  } else {
    out[(*len)++] = (char)(0xF0 | (cp >> 18));
    out[(*len)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[(*len)++] = (char)(0x80 | (cp & 0x3F));
  }
}

static unsigned long hex4(const char *p) {
  char digits[5];
  memcpy(digits, p, 4);
  digits[4] = '\0';
  return strtoul(digits, NULL, 16);
}

/* The value of the top-level string member `key` of a plugline result object, decoded, as a
 * malloc'ed NUL-terminated string (*out_len bytes; it may contain NULs). NULL if the member is
 * missing or null. plugline writes compact JSON ("key":value), which is all this expects; a
 * real host would use its JSON library. */
static char *json_get_string(const char *json, const char *key, size_t *out_len) {
  char pattern[64];
  const char *p;
  char *out;
  size_t len = 0;
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  p = strstr(json, pattern);
  if (p == NULL) return NULL;
  p += strlen(pattern);
  out = malloc(strlen(p) + 1); /* decoding never makes a string longer */
  if (out == NULL) return NULL;
  while (*p != '\0' && *p != '"') {
    if (*p != '\\') {
      out[len++] = *p++;
      continue;
    }
    ++p;
    switch (*p) {
      case 'n': out[len++] = '\n'; break;
      case 't': out[len++] = '\t'; break;
      case 'r': out[len++] = '\r'; break;
      case 'b': out[len++] = '\b'; break;
      case 'f': out[len++] = '\f'; break;
      case 'u': {
        unsigned long cp;
        if (strlen(p + 1) < 4) goto done;
        cp = hex4(p + 1);
        p += 4;
        /* A UTF-16 surrogate pair: \uD83D\uDE00. */
        if (cp >= 0xD800 && cp < 0xDC00 && p[1] == '\\' && p[2] == 'u' && strlen(p + 3) >= 4) {
          unsigned long low = hex4(p + 3);
          if (low >= 0xDC00 && low < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            p += 6;
          }
        }
        put_utf8(out, &len, cp);
        break;
      }
      case '\0': goto done;
      default: out[len++] = *p; break; /* \" \\ \/ */
    }
    ++p;
  }
done:
  out[len] = '\0';
  *out_len = len;
  return out;
}

/* The value of the top-level number member `key`, or -1. */
static double json_get_number(const char *json, const char *key) {
  char pattern[64];
  const char *p;
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  p = strstr(json, pattern);
  return p == NULL ? -1 : strtod(p + strlen(pattern), NULL);
}

static int fail(const char *what, int status) {
  fprintf(stderr, "shape_host: %s: %s: %s\n", what, plugline_status_str(status),
          plugline_last_error_message());
  return 1;
}

int main(int argc, char **argv) {
  int exit_code = PLUGLINE_EXIT_CODE_UNKNOWN;
  int first = 1;
  char *command;
  size_t command_len = 0;
  char *output;
  size_t output_len = 0;
  plugline_host *host = NULL;
  char *json = NULL;
  size_t json_len = 0;
  char *summary, *shaper, *raw_path;
  size_t summary_len = 0, unused = 0;
  int status, i;

  if (argc > 2 && strcmp(argv[1], "--exit-code") == 0) {
    exit_code = atoi(argv[2]);
    first = 3;
  }
  if (first >= argc) {
    fprintf(stderr, "usage: some-command 2>&1 | %s [--exit-code N] COMMAND [ARG...]\n", argv[0]);
    return 2;
  }

  /* The command line, as the agent ran it. */
  for (i = first; i < argc; ++i) command_len += strlen(argv[i]) + 1;
  command = malloc(command_len);
  if (command == NULL) return 1;
  command[0] = '\0';
  for (i = first; i < argc; ++i) {
    if (i > first) strcat(command, " ");
    strcat(command, argv[i]);
  }

  output = read_all(stdin, &output_len);
  if (output == NULL) {
    fprintf(stderr, "shape_host: cannot read standard input\n");
    free(command);
    return 1;
  }

  /* NULL config: the defaults (home from $PLUGLINE_HOME, else ~/.plugline). */
  status = plugline_host_new(&host, NULL);
  if (status != PLUGLINE_OK) {
    free(command);
    free(output);
    return fail("plugline_host_new", status);
  }

  status = plugline_host_shape(&json, &json_len, host, command, strlen(command), output,
                               output_len, exit_code, NULL);
  free(command);
  free(output);
  if (status != PLUGLINE_OK) {
    plugline_host_free(host);
    return fail("plugline_host_shape", status);
  }

  summary = json_get_string(json, "summary", &summary_len);
  shaper = json_get_string(json, "shaper", &unused);
  raw_path = json_get_string(json, "raw_path", &unused);
  if (summary != NULL) {
    fwrite(summary, 1, summary_len, stdout);
    if (summary_len > 0 && summary[summary_len - 1] != '\n') fputc('\n', stdout);
  }
  fprintf(stderr, "[plugline %s: shaper %s, %.0f -> %.0f tokens, raw output: %s]\n",
          plugline_version_string(), shaper ? shaper : "(none)", json_get_number(json, "tokens_raw"),
          json_get_number(json, "tokens_summary"), raw_path ? raw_path : "(not stored)");

  free(summary);
  free(shaper);
  free(raw_path);
  plugline_free(json);
  plugline_host_free(host);
  return 0;
}
