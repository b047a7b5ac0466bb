/*
 * layout_text.c -- the hostfile and the per-rank core list
 * (cmp_layout_text.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmp_layout_text.h"

char *cmp_hostfile_format(const char *const *names, const int *node, int ntasks,
                          size_t *len, cm_error_t *err)
{
    size_t size = 1;
    if (ntasks > 0 && (!names || !node)) {
        cm_error_set(err,
                     "hostfile: expected the node names and each rank's "
                     "node, got NULL");
        return NULL;
    }
    for (int r = 0; r < ntasks; r++) {
        const char *h = names[node[r]];
        if (!h) {
            cm_error_set(err, "hostfile: rank %d's node has no name (NULL)", r);
            return NULL;
        }
        if (!h[0] || strpbrk(h, " \t\r\n")) {
            cm_error_set(err,
                         "hostfile: node name '%s' of rank %d is empty or holds "
                         "a blank",
                         h, r);
            return NULL;
        }
        size += strlen(h) + 1;
    }
    char *text = malloc(size);
    if (!text) {
        cm_error_set(err, "hostfile: out of memory (%zu bytes for %d ranks)", size,
                     ntasks);
        return NULL;
    }
    size_t used = 0;
    for (int r = 0; r < ntasks; r++) {
        size_t l = strlen(names[node[r]]);
        memcpy(text + used, names[node[r]], l);
        text[used + l] = '\n';
        used += l + 1;
    }
    text[used] = '\0';
    if (len)
        *len = used;
    return text;
}

int cmp_hostfile_parse(const char *text, size_t len, const char *const *names, int nnames,
                       int ntasks, int *node, cm_error_t *err)
{
    if ((!text && len) || (nnames > 0 && !names) || (ntasks > 0 && !node))
        return cm_error_set(err,
                            "hostfile: expected its text, the node names "
                            "and room for each rank's node, got NULL");
    for (int k = 0; k < nnames; k++)
        if (!names[k])
            return cm_error_set(err, "hostfile: node %d has no name (NULL)", k);
    if (!text)
        text = "";
    const char *p = text, *end = text + len;
    int r = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (r >= ntasks)
            return cm_error_set(err, "hostfile: line %d: more lines than the %d ranks",
                                r + 1, ntasks);
        int k = 0;
        while (k < nnames && (strlen(names[k]) != l || memcmp(names[k], p, l)))
            k++;
        if (k == nnames)
            return cm_error_set(err,
                                "hostfile: line %d: '%.*s' is not a node of the "
                                "allocation",
                                r + 1, (int)(l > 64 ? 64 : l), p);
        node[r++] = k;
        p += l + (nl ? 1 : 0);
    }
    if (r != ntasks)
        return cm_error_set(err, "hostfile: %d lines for %d ranks", r, ntasks);
    return 0;
}

char *cmp_core_list_format(const int *slot, int ntasks, cm_error_t *err)
{
    /* at most 7 digits and a comma an entry (CMP_CORE_LIST_MAX_SLOT) */
    size_t cap = (size_t)(ntasks > 0 ? ntasks : 0) * 8 + 1, used = 0;
    if (!slot && ntasks > 0) {
        cm_error_set(err, "core list: expected each rank's slot, got NULL");
        return NULL;
    }
    char *list = malloc(cap);
    if (!list) {
        cm_error_set(err, "core list: out of memory (%zu bytes for %d ranks)", cap,
                     ntasks);
        return NULL;
    }
    list[0] = '\0';
    for (int r = 0; r < ntasks; r++) {
        if (slot[r] < 0 || slot[r] > CMP_CORE_LIST_MAX_SLOT) {
            free(list);
            cm_error_set(err, "core list: rank %d has slot %d (expected 0 to %d)", r,
                         slot[r], CMP_CORE_LIST_MAX_SLOT);
            return NULL;
        }
        used += (size_t)snprintf(list + used, cap - used, "%s%d", r ? "," : "", slot[r]);
    }
    return list;
}

int cmp_core_list_entry(const char *list, unsigned rank)
{
    const char *p = list;
    if (!p)
        return -1;
    for (unsigned i = 0; i < rank; i++) {
        p = strchr(p, ',');
        if (!p)
            return -1;
        p++;
    }
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || (*end && *end != ',') || v < 0 || v > CMP_CORE_LIST_MAX_SLOT)
        return -1;
    return (int)v;
}

int cmp_gpu_info_item(const char *info, int k, char *buf, size_t size)
{
    if (buf && size)
        buf[0] = '\0';
    if (!info || !buf || !size || k < 0)
        return -1;
    const char *p = info;
    for (; k > 0 && p; k--)
        if ((p = strchr(p, ' ')))
            p++;
    if (!p || !*p)
        return -1;
    size_t len = strcspn(p, " ");
    if (len >= size)
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return 0;
}

int cmp_gpu_info_split(char *item, const char **nic, int *verbs, const char **cpus)
{
    char *colon = item ? strchr(item, ':') : NULL;
    if (!colon || !nic || !verbs || !cpus)
        return -1;
    *colon = '\0';
    size_t pre = strlen(CMP_GPU_INFO_VERBS);
    *verbs = !strncmp(item, CMP_GPU_INFO_VERBS, pre);
    *nic = item + (*verbs ? pre : 0);
    *cpus = colon + 1;
    return 0;
}
