#!/bin/sh
# medians.sh: reads `go test -bench ... -count N` output on stdin and
# prints, for every benchmark and metric, the median over the runs.
awk '
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	if (!(name in seen)) { seen[name] = 1; order[++nn] = name }
	for (i = 3; i + 1 <= NF; i += 2) {
		key = name SUBSEP $(i + 1)
		if (!(key in nv)) { units[name] = units[name] " " $(i + 1) }
		vals[key, ++nv[key]] = $i
	}
}
END {
	for (k = 1; k <= nn; k++) {
		name = order[k]
		printf "%s\n", name
		m = split(units[name], us, " ")
		for (u = 1; u <= m; u++) {
			key = name SUBSEP us[u]; n = nv[key]
			for (i = 1; i <= n; i++) a[i] = vals[key, i]
			for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j] + 0 < a[j - 1] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			med = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			printf "  %-22s median %-12.4g (n=%d, min %.4g, max %.4g)\n", us[u], med, n, a[1], a[n]
		}
	}
}'
