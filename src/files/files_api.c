/*
 * files_api.c - tc_filter_files and its settings (tiledconv_files.h): the options kept as the
 * words a command line would hold, parsed by the tool's own parser when the run starts (one
 * table of options, one set of rules: the same bytes as the tool), the inputs named by its
 * rules, then the batch pipeline with a reporter that fills the caller's results.
 */
#define _GNU_SOURCE /* open_memstream */
#include "tiledconv_files.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "batch_state.h"
#include "devices.h"
#include "inputs.h"
#include "option_parse.h"
#include "atomic_file.h"
#include "option_table.h"
#include "outputs.h"
#include "plan.h"
#include "files_run.h"

struct tc_files {
    char **words; /* "--name" or "--name=value", in the order set */
    int count, capacity;
};

/* The tool's options that shape its reports or its studies of one image, or name its inputs
 * (a run of files is given them), not a run of files. */
static const char *const tool_only[] = {"source", "generate", "files-from", "class-map",
                                        "pyramid", "timing", "iterations", "csv", "json", "list",
                                        "verbose", "quiet", "help", "version"};

/* The parser (getopt's state) and the process-wide settings a run makes (the JPEG sampling,
 * --tune) are one per process: runs take turns. */
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

/* Set on the thread that holds run_lock for a run of files, whose progress callback runs on it:
 * a call of this header from that callback is refused rather than waiting for itself. */
static _Thread_local int in_run;

static int fail(int status, char *err, size_t err_size, const char *fmt, const char *a,
                const char *b)
{
    if (err && err_size)
        snprintf(err, err_size, fmt, a, b);
    return status;
}

TC_API int tc_files_new(tc_files **run)
{
    if (!run)
        return TC_EINVAL;
    *run = calloc(1, sizeof **run);
    return *run ? TC_OK : TC_ENOMEM;
}

TC_API void tc_files_free(tc_files *run)
{
    if (!run)
        return;
    for (int i = 0; i < run->count; i++)
        free(run->words[i]);
    free(run->words);
    free(run);
}

/* The table's option of this long name, or NULL. */
static const cli_option *option_named(const char *name)
{
    for (size_t i = 0; i < cli_option_count; i++)
        if (cli_options[i].long_name && strcmp(cli_options[i].long_name, name) == 0)
            return &cli_options[i];
    return NULL;
}

TC_API int tc_files_set(tc_files *run, const char *option, const char *value, char *err,
                        size_t err_size)
{
    if (!run || !option)
        return fail(TC_EINVAL, err, err_size, "%s%s", "no run or no option name", "");
    const cli_option *opt = option_named(option);
    if (!opt)
        return fail(TC_EINVAL, err, err_size, "%s: no such option%s", option, "");
    for (size_t i = 0; i < sizeof tool_only / sizeof *tool_only; i++)
        if (strcmp(option, tool_only[i]) == 0)
            return fail(TC_EINVAL, err, err_size,
                        "%s: an option of the command line's reports, studies or inputs, not "
                        "of a run of files%s", option, "");
    if (opt->value == CLI_NO_VALUE && value)
        return fail(TC_EINVAL, err, err_size, "%s takes no value (given %s)", option, value);
    if (opt->value == CLI_VALUE && !value)
        return fail(TC_EINVAL, err, err_size, "%s needs a value%s", option, "");
    if (run->count == run->capacity) {
        const int capacity = run->capacity ? 2 * run->capacity : 16;
        char **words = realloc(run->words, (size_t)capacity * sizeof *words);
        if (!words)
            return TC_ENOMEM;
        run->words = words;
        run->capacity = capacity;
    }
    const size_t size = strlen(option) + (value ? strlen(value) + 1 : 0) + 3;
    char *word = malloc(size);
    if (!word)
        return TC_ENOMEM;
    snprintf(word, size, "--%s%s%s", option, value ? "=" : "", value ? value : "");
    run->words[run->count++] = word;
    return TC_OK;
}

/* ---- The reporter: each file's outcome into its result ---------------------------------- */

typedef struct {
    tc_file_result *results;
    int count;
    tc_file_progress progress;
    void *user;
    int shown; /* the last done the caller was told */
    char whole[768]; /* the last line said of the whole batch (no file's), "" if none */
} collector;

static void on_image(const batch *b, const job *j, void *arg)
{
    collector *c = arg;
    tc_file_result *r = &c->results[j->index];
    (void)b;
    *r = (tc_file_result){
        .status = j->status == JOB_NO_DEVICE ? TC_FILE_NOT_RUN : j->status,
        .width = j->src.width, .height = j->src.height, .output = r->output,
        .read_ms = j->read_ms, .upload_ms = j->upload_ms, .convert_ms = j->convert_ms,
        .kernel_ms = j->kernel_ms, .download_ms = j->download_ms, .write_ms = j->write_ms,
        .checked = j->checked, .max_difference = j->max_error,
    };
    snprintf(r->message, sizeof r->message, "%s", j->status == JOB_OK ? "" : j->msg);
}

static void on_note(const batch *b, int index, const char *line, void *arg)
{
    collector *c = arg;
    (void)b;
    if (index >= 0 && index < c->count) {
        c->results[index].status = TC_FILE_FAILED;
        snprintf(c->results[index].message, sizeof c->results[index].message, "%s", line);
    } else {
        snprintf(c->whole, sizeof c->whole, "%s", line);
    }
}

static void tell(collector *c, int done)
{
    if (c->progress && done != c->shown) {
        c->shown = done;
        c->progress(done, c->count, c->user);
    }
}

static void on_progress(const batch *b, void *arg)
{
    tell(arg, b->done); /* under the batch's lock: the caller's callback must be short */
}

/* ---- The run ------------------------------------------------------------------------------ */

/* Whether the run sets --tune. */
static int tuned(const tc_files *run)
{
    for (int i = 0; i < run->count; i++)
        if (strncmp(run->words[i], "--tune=", 7) == 0)
            return 1;
    return 0;
}

/* The command line these settings and inputs make: the tool's name, the options, "--", the
 * inputs (so that an input named like an option stays an input). */
static char **command_line(const tc_files *run, const char *const *inputs, int count, int *argc)
{
    char **argv = calloc((size_t)run->count + (size_t)count + 3, sizeof *argv);
    int n = 0;
    if (!argv)
        return NULL;
    argv[n++] = "tiledconv";
    for (int i = 0; i < run->count; i++)
        argv[n++] = run->words[i];
    argv[n++] = "--";
    for (int i = 0; i < count; i++)
        argv[n++] = (char *)inputs[i];
    *argc = n;
    return argv;
}

/* cli_parse's one line, without the tool's name and the newline, into err. */
static int parse(int argc, char **argv, tc_options *o, char *err, size_t err_size)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return TC_ENOMEM;
    const int rc = cli_parse(argc, argv, o, mem);
    fclose(mem);
    if (rc != 0) {
        const char *line = text && strncmp(text, "tiledconv: ", 11) == 0 ? text + 11 : text;
        size_t n = line ? strcspn(line, "\n") : 0;
        if (err && err_size)
            snprintf(err, err_size, "%.*s", (int)n, line ? line : "the options were refused");
    }
    free(text);
    return rc == 0 ? TC_OK : TC_EINVAL;
}

/* Whether a word ("--name" or "--name=value") sets one of the input's limits. */
static int sets_limit(const char *word)
{
    return strncmp(word, "--max-pixels=", 13) == 0 || strcmp(word, "--allow-high-ratio") == 0;
}

int files_parse_locked(const tc_files *run, const char *path, int output, files_parsed *p,
                       char *err, size_t err_size)
{
    int argc = 0;
    tc_files with = {.count = 0};
    char *word = NULL;
    const size_t size = strlen(path) + sizeof "--output=";
    if (!(with.words = malloc(((size_t)run->count + 1) * sizeof *with.words)) ||
        (output && !(word = malloc(size)))) {
        free(with.words);
        return TC_ENOMEM;
    }
    for (int i = 0; i < run->count; i++) /* a read is given its limits alone */
        if (output || sets_limit(run->words[i]))
            with.words[with.count++] = run->words[i];
    if (output) { /* "--output=PATH" after the run's words: the last one counts */
        snprintf(word, size, "--output=%s", path);
        with.words[with.count++] = word;
    }
    if (in_run) {
        free(with.words);
        free(word);
        return fail(TC_EINVAL, err, err_size, "%s%s",
                    "called from a run's progress callback: the run holds the process's "
                    "settings until it returns", "");
    }
    p->argv = command_line(&with, &path, 1, &argc);
    p->word = word;
    free(with.words); /* argv holds the words themselves */
    if (!p->argv) {
        free(word);
        return TC_ENOMEM;
    }
    pthread_mutex_lock(&run_lock);
    const int status = parse(argc, p->argv, &p->o, err, err_size);
    if (status != TC_OK)
        files_parsed_end(p);
    return status;
}

void files_parsed_end(files_parsed *p)
{
    free(p->argv); /* the options point into it and into word */
    free(p->word);
    p->argv = NULL;
    p->word = NULL;
    pthread_mutex_unlock(&run_lock);
}

/* The rules a run of files adds to the tool's: what only the tool's studies do. */
static int check_files_options(const tc_options *o, char *err, size_t err_size)
{
    if (o->write_output && o->output && outputs_is_stdout(o->output))
        return fail(TC_EINVAL, err, err_size, "%s%s",
                    "output -: standard output is the command line's, a run of files writes "
                    "files", "");
    if (o->all_algorithms)
        return fail(TC_EINVAL, err, err_size, "%s%s",
                    "algorithm all compares the algorithms on one image (the command line's "
                    "study), not a run of files", "");
    return TC_OK;
}

/* Runs the batch on the gathered list; the results filled. */
static int run_batch(const tc_options *o, const batch_list *list, tc_file_result *results,
                     int count, tc_file_progress progress, void *user, char *err,
                     size_t err_size)
{
    char requests[TC_MAX_DEVICES][64], why[1024];
    int n_requests = 0;
    collector c = {results, count, progress, user, -1, ""};
    int status = devices_resolve(o, requests, &n_requests, why, sizeof why);
    if (status != 0)
        return fail(status == 2 ? TC_EINVAL : TC_EDEVICE, err, err_size, "%s%s", why, "");
    for (int i = 0; i < count; i++)
        free(results[i].output), results[i].output = list->items[i].output
                                                         ? strdup(list->items[i].output)
                                                         : NULL;
    const batch_reporter r = {.image = on_image, .note = on_note, .progress = on_progress,
                              .arg = &c, .progress_wanted = progress != NULL};
    /* The caller goes on once every output is in place; the devices close behind it. */
    status = batch_run(o, list, requests, n_requests, BATCH_END_BEHIND, &r);
    tell(&c, count);
    int opened = 0;
    for (int i = 0; i < count; i++)
        opened |= results[i].status != TC_FILE_NOT_RUN;
    if (!opened && count > 0) {
        snprintf(err, err_size, "%s", results[0].message[0] ? results[0].message
                                      : c.whole[0]            ? c.whole
                                                              : "no device opened");
        return status == 2 ? TC_EINVAL : TC_EDEVICE;
    }
    return TC_OK;
}

TC_API int tc_filter_files(tc_files *run, const char *const *inputs, int count,
                           tc_file_result *results, tc_file_progress progress, void *user,
                           char *err, size_t err_size)
{
    if (!run || count < 0 || (count > 0 && (!inputs || !results)))
        return fail(TC_EINVAL, err, err_size, "%s%s", "no run, inputs or results", "");
    for (int i = 0; i < count; i++) {
        if (!inputs[i])
            return fail(TC_EINVAL, err, err_size, "%s%s", "an input is NULL", "");
        memset(&results[i], 0, sizeof results[i]);
        results[i].status = TC_FILE_NOT_RUN;
    }
    if (count == 0)
        return TC_OK;
    if (in_run)
        return fail(TC_EINVAL, err, err_size, "%s%s",
                    "called from a run's progress callback: the run holds the process's "
                    "settings until it returns", "");
    int argc, status;
    char **argv = command_line(run, inputs, count, &argc);
    tc_options o;
    batch_list list;
    if (!argv)
        return TC_ENOMEM;
    memset(&list, 0, sizeof list);
    pthread_mutex_lock(&run_lock);
    in_run = 1;
    status = parse(argc, argv, &o, err, err_size);
    if (status == TC_OK)
        status = check_files_options(&o, err, err_size);
    if (status == TC_OK) {
        atomic_file_read_umask();
        io_set_jpeg_sampling(o.sampling);
        if (tuned(run)) /* else the process's settings stay as its other calls made them */
            tc_set_tuning(&o.tuning);
        const int rc = plan_check_budget(&o, err, err_size);
        if (rc != 0)
            status = rc == 2 ? TC_EINVAL : TC_ENOMEM;
    }
    if (status == TC_OK) {
        const int rc = inputs_gather(&o, &list, err, err_size);
        if (rc != 0)
            status = rc == 2 ? TC_EINVAL : TC_ENOMEM;
        else if (list.count != count) /* the inputs are the ones given, one result each */
            status = fail(TC_EINVAL, err, err_size, "%s%s", "the inputs are not the ones given",
                          "");
    }
    if (status == TC_OK)
        status = run_batch(&o, &list, results, count, progress, user, err, err_size);
    inputs_free(&list);
    in_run = 0;
    pthread_mutex_unlock(&run_lock);
    free(argv);
    return status;
}

TC_API void tc_file_results_clear(tc_file_result *results, int count)
{
    for (int i = 0; results && i < count; i++) {
        free(results[i].output);
        results[i].output = NULL;
    }
}
