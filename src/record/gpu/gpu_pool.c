/* gpu_pool.c — per-GPU reader threads; see gpu_pool.h. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "gpu_pool.h"

struct gpu_pool_worker {
    struct gpu_pool *pool;
    int i;
    pthread_t thread;
    nvmlReturn_t rc;            /* this generation's result, under pool->lock */
};

/* Waits for a generation it has not read yet, reads its GPU outside the
 * lock (so the GPUs' queries overlap), reports, and waits again. */
static void *worker_main(void *arg)
{
    struct gpu_pool_worker *w = arg;
    struct gpu_pool *p = w->pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->generation == seen && !p->stopping)
            pthread_cond_wait(&p->go, &p->lock);
        if (p->stopping)
            break;
        seen = p->generation;
        pthread_mutex_unlock(&p->lock);
        nvmlReturn_t rc = gpu_sample(p->lib, &p->devs[w->i], &p->readings[w->i]);
        pthread_mutex_lock(&p->lock);
        w->rc = rc;
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int gpu_pool_start(struct gpu_pool *p, const struct nvml_lib *lib, struct gpu_dev *devs,
                   struct gpu_reading *readings, int n)
{
    memset(p, 0, sizeof *p);
    p->lib = lib;
    p->devs = devs;
    p->readings = readings;
    p->workers = calloc((size_t)n, sizeof *p->workers);
    if (!p->workers) {
        diag_error("out of memory");
        return -1;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    /* Signals go to the sampling thread, whose sleep they must interrupt. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = 0;
    for (; p->n < n; p->n++) {
        struct gpu_pool_worker *w = &p->workers[p->n];
        w->pool = p;
        w->i = p->n;
        rc = pthread_create(&w->thread, NULL, worker_main, w);
        if (rc != 0)
            break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        diag_error("cannot start the GPU reader threads: %s", strerror(rc));
        gpu_pool_stop(p);           /* joins the ones that did start */
        return -1;
    }
    return 0;
}

void gpu_pool_sample(struct gpu_pool *p, nvmlReturn_t *rc)
{
    pthread_mutex_lock(&p->lock);
    p->pending = p->n;
    p->generation++;
    pthread_cond_broadcast(&p->go);
    while (p->pending > 0)
        pthread_cond_wait(&p->done, &p->lock);
    for (int i = 0; i < p->n; i++)
        rc[i] = p->workers[i].rc;
    pthread_mutex_unlock(&p->lock);
}

void gpu_pool_stop(struct gpu_pool *p)
{
    if (!p->workers)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->n; i++)
        pthread_join(p->workers[i].thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    free(p->workers);
    p->workers = NULL;
    p->n = 0;
}
