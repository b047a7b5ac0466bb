# summary.awk -- the judge's summary from its CSV rows (bench/sim/judge
# --csv; header lines are skipped, so several files can be given):
#   1. per application, platform and model: each placement's simulated
#      total time as a ratio to block;
#   2. Spearman's rank correlation between J and simulated communication
#      time, per application and pooled.  Both are taken as ratios to
#      block of the same case (platform, model), so that cases with
#      different costs and times can be pooled;
#   3. every case where a clustermap placement (auto, and each of its
#      algorithms) is more than 1 % slower than block.
# Usage: awk -F, -f summary.awk FILE.csv...
# Columns: app,np,platform,model,placement,total_s,comm_s,J,J_ratio_block,time_ratio_block

function spearman(xs, ys, n,    i, j, rx, ry, mx, my, sxy, sxx, syy) {
    if (n < 3)
        return "n/a"
    for (i = 1; i <= n; i++) {
        rx[i] = 1; ry[i] = 1
        for (j = 1; j <= n; j++) {
            if (j == i) continue
            rx[i] += (xs[j] < xs[i]) + 0.5 * (xs[j] == xs[i])
            ry[i] += (ys[j] < ys[i]) + 0.5 * (ys[j] == ys[i])
        }
        mx += rx[i]; my += ry[i]
    }
    mx /= n; my /= n
    for (i = 1; i <= n; i++) {
        sxy += (rx[i] - mx) * (ry[i] - my)
        sxx += (rx[i] - mx) ^ 2
        syy += (ry[i] - my) ^ 2
    }
    if (sxx == 0 || syy == 0)
        return "n/a"
    return sprintf("%+.2f", sxy / sqrt(sxx * syy))
}

$1 == "app" || NF != 10 { next }
{
    key = $1 "," $2
    c = key "," $3 "," $4
    if (!(key in seenapp)) { apps[++napps] = key; seenapp[key] = 1 }
    if (!(c in seencase)) { cases[++ncases] = c; seencase[c] = 1 }
    if (!($5 in seenpl)) { pls[++npls] = $5; seenpl[$5] = 1 }
    ratio[c, $5] = $10
    comm[c, $5] = $7
    jr[c, $5] = $9
    total[c, $5] = $6
}
END {
    printf "simulated total time / block (per application, platform, model)\n"
    printf "%-28s %-16s %-8s", "application", "platform", "model"
    for (k = 1; k <= npls; k++) printf " %9s", pls[k]
    printf "\n"
    for (i = 1; i <= ncases; i++) {
        split(cases[i], f, ",")
        printf "%-28s %-16s %-8s", f[1] "/" f[2], f[3], f[4]
        for (k = 1; k <= npls; k++)
            if ((cases[i], pls[k]) in ratio) printf " %9.3f", ratio[cases[i], pls[k]]
            else printf " %9s", "-"
        printf "\n"
    }

    printf "\nrank correlation (Spearman) of J and simulated communication time, as ratios to block\n"
    np_all = 0
    for (a = 1; a <= napps; a++) {
        n = 0
        for (i = 1; i <= ncases; i++) {
            if (index(cases[i], apps[a] ",") != 1) continue
            cb = comm[cases[i], "block"]
            for (k = 1; k <= npls; k++) {
                if (!((cases[i], pls[k]) in comm) || cb <= 0) continue
                n++; x[n] = jr[cases[i], pls[k]]; y[n] = comm[cases[i], pls[k]] / cb
                np_all++; X[np_all] = x[n]; Y[np_all] = y[n]
            }
        }
        split(apps[a], f, ",")
        printf "  %-28s %6s  (%d points)\n", f[1] "/" f[2], spearman(x, y, n), n
        delete x; delete y
    }
    printf "  %-28s %6s  (%d points)\n", "pooled", spearman(X, Y, np_all), np_all

    printf "\nclustermap slower than block by more than 1 %%\n"
    nflag = 0
    for (i = 1; i <= ncases; i++)
        for (k = 1; k <= npls; k++) {
            p = pls[k]
            if (p != "auto" && p != "scotch-ms" && p != "cluster" && p != "treecut") continue
            if (!((cases[i], p) in ratio) || ratio[cases[i], p] <= 1.01) continue
            split(cases[i], f, ",")
            printf "  %-10s %-28s %-16s %-8s time/block %.3f  comm/block %.3f  J/block %.3f\n",
                   p, f[1] "/" f[2], f[3], f[4], ratio[cases[i], p],
                   (comm[cases[i], "block"] > 0 ? comm[cases[i], p] / comm[cases[i], "block"] : 1),
                   jr[cases[i], p]
            nflag++
        }
    if (!nflag) printf "  none\n"
}
