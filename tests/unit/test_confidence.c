/* test_confidence.c — the answer line and its confidence (confidence.h,
 * report_answer.c): each level at its thresholds and what lowers it, the
 * line's exact text for each verdict, the table's reason, the evidence
 * clauses the text leaves out, and the recorder's status line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "confidence.h"
#include "live_line.h"
#include "report.h"
#include "verdict.h"
#include "window_texts.h"

static struct window_gpu gpu;
static struct window win;
static struct window_text_scratch win_texts;
static struct segment win_seg[BREAKDOWN_MAX_SEGMENTS];   /* win.bd's */

/* A window of DUR_MS with segments (class, length) in order, edges +-RES. */
static void setup(double dur_ms, double res, int nseg, const int *cls, const double *ms)
{
    memset(&gpu, 0, sizeof gpu);
    memset(&win, 0, sizeof win);
    window_texts_init(&win);
    window_texts_begin(&win_texts, &win);
    gpu.source = SOURCE_COUNTER;
    gpu.mean_power_w = 300;
    gpu.idle_w = 75;
    gpu.busy_w = 612;
    gpu.util_pct = 50;
    gpu.samples = 72;
    gpu.gpm.status = GPM_ABSENT;
    win.index = 1;
    win.start_label = "infer_start";
    win.end_label = "first_token";
    win.ngpu = 1;
    win.gpu = &gpu;
    win.duration_s = dur_ms / 1e3;
    win.host_cpu_pct = NAN;
    win.proc_cores = NAN;
    win.top_thread_cores = NAN;
    win.cpu_tree_known = 1;
    win.bd.valid = 1;
    win.bd.resolution_ms = res;
    win.bd.seg = win_seg;
    double at = 0;
    for (int i = 0; i < nseg; i++) {
        win.bd.seg[i].start_ms = at;
        win.bd.seg[i].end_ms = at + ms[i];
        win.bd.seg[i].cls = (enum time_class)cls[i];
        win.bd.ms[cls[i]] += ms[i];
        at += ms[i];
    }
    win.bd.nseg = nseg;
}

static void judge(void)
{
    struct analysis_options o;
    analysis_default_options(&o);
    verdict_window(&o, &win);
    confidence_window(&win);
}

static char line[1024];
static const char *answer(void)
{
    FILE *f = fmemopen(line, sizeof line, "w");
    report_answer_line(f, &win);
    fclose(f);
    return line;
}

static void test_levels(void)
{
    const int c[] = { CLASS_COMPUTE }, wc[] = { CLASS_WAITING, CLASS_COMPUTE };
    /* 36 ms on 724 ms: 4.97 %, high; 37 ms: 5.1 %, medium */
    setup(724, 36, 1, c, (double[]){ 724 });
    judge();
    CHECK(win.verdict == VERDICT_COMPUTE);
    CHECK(win.confidence == CONFIDENCE_HIGH);
    CHECK_STR(win.confidence_reason, "");
    CHECK_STR(answer(), "window 1 infer_start -> first_token  0.724 s  compute  (edges +-36 ms, confidence high)\n");
    setup(724, 37, 1, c, (double[]){ 724 });
    judge();
    CHECK(win.confidence == CONFIDENCE_MEDIUM);
    CHECK_STR(answer(), "window 1 infer_start -> first_token  0.724 s  compute  (edges +-37 ms, confidence "
                        "medium: edges +-37 ms are 5% of the 724 ms window)\n");
    /* the shortest part decides: 45 ms on a 300 ms part is 15 %: medium */
    setup(724, 45, 2, wc, (double[]){ 300, 424 });
    judge();
    CHECK(win.verdict == VERDICT_MIXED);
    CHECK_STR(answer(), "window 1 infer_start -> first_token  0.724 s  mixed: 41% waiting, then 59% compute  "
                        "(edges +-45 ms, confidence medium: edges +-45 ms are 15% of the 300 ms waiting part)\n");
    /* the case: +-145 ms on a 54 ms part of a 500 ms window: low (and
     * the part, shorter than its edges, cannot be placed: no "then") */
    const int cw[] = { CLASS_COMPUTE, CLASS_WAITING };
    setup(500, 145, 2, cw, (double[]){ 446, 54 });
    judge();
    CHECK(win.verdict == VERDICT_COMPUTE);
    CHECK(win.confidence == CONFIDENCE_LOW);
    CHECK_STR(answer(), "window 1 infer_start -> first_token  0.500 s  compute: 89% compute, 11% waiting  "
                        "(edges +-145 ms, confidence low: edges +-145 ms are 269% of the 54 ms waiting part)\n");
    /* 20 % exactly is still medium */
    setup(500, 20, 2, cw, (double[]){ 400, 100 });
    judge();
    CHECK(win.confidence == CONFIDENCE_MEDIUM);
}

static void test_verdicts(void)
{
    const int w[] = { CLASS_WAITING }, h[] = { CLASS_HOST_CPU };
    setup(724, 5, 1, w, (double[]){ 724 });
    gpu.mean_power_w = 75;
    judge();
    CHECK_STR(answer(), "window 1 infer_start -> first_token  0.724 s  waiting  (edges +-5 ms, confidence high)\n");
    setup(724, 5, 1, h, (double[]){ 724 });
    gpu.mean_power_w = 75;
    win.proc_cores = 1;
    judge();
    CHECK_STR(answer(), "window 1 infer_start -> first_token  0.724 s  host-cpu  (edges +-5 ms, confidence high)\n");
    /* host-cpu called on the whole host's load: the job's CPU unknown */
    win.cpu_tree_known = 0;
    confidence_window(&win);
    CHECK_STR(answer(), "window 1 infer_start -> first_token  0.724 s  host-cpu  (edges +-5 ms, confidence "
                        "medium: the job's CPU was not traced: host-cpu is the whole host's load)\n");
    /* shorter than the edges: inconclusive, no grade, its reason */
    setup(8, 9, 1, w, (double[]){ 8 });
    judge();
    CHECK(win.verdict == VERDICT_INCONCLUSIVE && win.confidence == CONFIDENCE_NONE);
    CHECK_STR(answer(), "window 1 infer_start -> first_token  0.008 s  inconclusive: the window (8 ms) is "
                        "shorter than the breakdown's resolution (+-9 ms, from the sensors' cadence)  "
                        "(edges +-9 ms, confidence none)\n");
    /* no breakdown: the power rule, low */
    setup(724, 5, 0, w, NULL);
    win.bd.valid = 0;
    gpu.mean_power_w = 600;
    judge();
    CHECK(win.verdict == VERDICT_COMPUTE);
    CHECK_STR(answer(), "window 1 infer_start -> first_token  0.724 s  compute  (edges unknown: no time "
                        "breakdown, confidence low: no time breakdown: the verdict rests on the window's "
                        "mean power)\n");
}

static void test_caps(void)
{
    const int c[] = { CLASS_COMPUTE };
    setup(724, 5, 1, c, (double[]){ 724 });
    win.flags = gpu.flags = WINDOW_NEAR_END;
    judge();
    CHECK(win.confidence == CONFIDENCE_MEDIUM);
    CHECK_STR(win.confidence_reason, "near-end: the trace stopped before the energy counter updated after an edge");
    setup(724, 5, 1, c, (double[]){ 724 });
    gpu.fault = WINDOW_COUNTER_STUCK;
    gpu.fell_from = SOURCE_COUNTER;
    gpu.source = SOURCE_INSTANT;
    gpu.gpm.status = GPM_TOO_COARSE;
    judge();
    CHECK(win.confidence == CONFIDENCE_MEDIUM);
    CHECK_STR(win.confidence_reason, "sensor fault counter-stuck on gpu 0: energy from gpu_power_instant_W "
                                     "trapezoid; GPM too coarse to check the compute's SM activity");
    /* a cap never raises a low grade */
    setup(100, 30, 1, c, (double[]){ 100 });
    gpu.source = SOURCE_AVERAGE;
    judge();
    CHECK(win.confidence == CONFIDENCE_LOW);
    CHECK_STR(win.confidence_reason, "edges +-30 ms are 30% of the 100 ms window; power from gpu_power_W, a 1 s average");
    CHECK_STR(confidence_name(CONFIDENCE_NONE), "none");
}

static void test_evidence_text(void)
{
    const int w[] = { CLASS_WAITING };
    setup(724, 5, 1, w, (double[]){ 724 });
    gpu.mean_power_w = 75;
    win.top_thread_cores = 0.001;
    snprintf(win.top_thread, sizeof win.top_thread, "12 python3");
    judge();
    char buf[EVIDENCE_MAX];
    CHECK(strstr(win.evidence, "; busiest thread '12 python3' 0.00 of a core while no GPU computed") != NULL);
    CHECK_STR(report_evidence_text(&win, 0, buf, sizeof buf),
              "100% waiting (724 ms), edges +-5 ms; power 75 W = idle 75 W + 0% of the busy range; gpu util 50%");
    CHECK_STR(report_evidence_text(&win, 1, buf, sizeof buf), win.evidence);
    CHECK_STR(report_reason_text(&win, buf, sizeof buf), "power 75 W = idle 75 W + 0% of the busy range");
    /* a thread at 0.01 of a core says something: kept */
    win.top_thread_cores = 0.01;
    judge();
    CHECK_STR(report_evidence_text(&win, 0, buf, sizeof buf), win.evidence);
    /* inconclusive: its reason */
    setup(8, 9, 1, w, (double[]){ 8 });
    judge();
    CHECK_STR(report_reason_text(&win, buf, sizeof buf),
              "the window (8 ms) is shorter than the breakdown's resolution (+-9 ms, from the sensors' cadence)");
}

static void test_status_line(void)
{
    char buf[512];
    live_status_format(buf, sizeof buf, "flinch record", 1.52, 150, 0, "612.000 W", "/tmp/flinch_marks", "");
    CHECK_STR(buf, "flinch record: 1.5 s, 150 rows, GPU 0 power 612.000 W; marks /tmp/flinch_marks, no mark yet");
    live_status_format(buf, sizeof buf, "flinch record", 2, 200, 1, "80.000 W (1 s avg)", "/tmp/x/marks",
                       "infer_start");
    CHECK_STR(buf, "flinch record: 2.0 s, 200 rows, GPU 1 power 80.000 W (1 s avg); marks /tmp/x/marks, "
                   "last 'infer_start'");
    live_status_format(buf, sizeof buf, "flinch record", 0.5, 3, -1, NULL, NULL, "");
    CHECK_STR(buf, "flinch record: 0.5 s, 3 rows, no GPU yet (--gpu auto); no marks FIFO");
    live_status_format(buf, sizeof buf, "flinch record", 1, 1, 0, "", "/f",
                       "a-label-that-is-longer-than-forty-bytes-by-far");
    CHECK_STR(buf, "flinch record: 1.0 s, 1 rows, GPU 0 power not read yet; marks /f, last "
                   "'a-label-that-is-longer-than-forty-byt...'");
    /* a small buffer: cut, terminated, the length it holds */
    CHECK(live_status_format(buf, 16, "flinch record", 1, 1, 0, "1 W", "/f", "x") == 15 && strlen(buf) == 15);
}

int main(void)
{
    run_test("confidence: high, medium, low at the thresholds, the shortest part", test_levels);
    run_test("confidence: answer line of each verdict, inconclusive, no breakdown", test_verdicts);
    run_test("confidence: fallbacks, faults and flags cap at medium", test_caps);
    run_test("answer: evidence clauses left out, the table's reason", test_evidence_text);
    run_test("answer: the recorder's status line with the FIFO and the last mark", test_status_line);
    return check_exit_status();
}
