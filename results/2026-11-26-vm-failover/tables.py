#!/usr/bin/env python3
"""The findings page's failover table, from sync/, async/ and redis/failover.json."""
import json, pathlib

here = pathlib.Path(__file__).parent
rows = []
for part in ["sync", "async", "redis"]:
    f = here / part / "failover.json"
    if not f.exists():
        continue
    for r in json.loads(f.read_text())["runs"]:
        rtt = lambda n: "straight" if not n else f"{n['rtt_us']/1000:g} ms"
        lossy = [x for x in r["per_round"] if x["lost"] > 0]
        lost = [x["lost"] for x in lossy]
        win = [x["lost_window_us"] / 1000 for x in lossy]
        last = [x["last_ack_to_kill_us"] / 1000 for x in r["per_round"] if x.get("last_ack_to_kill_us") is not None]
        fo = [x["failover_ms"] for x in r["per_round"]]
        # The upper median, as the command's failover.md takes it.
        med = lambda v, fmt: fmt.format(sorted(v)[len(v) // 2]) if v else "–"
        mx = lambda v, fmt: fmt.format(max(v)) if v else "–"
        rows.append(
            f"| `{r['profile']}` | {rtt(r.get('net'))} | {rtt(r.get('standby_link'))} | {r['rounds']} | "
            f"{r['acknowledged']} | **{r['lost']}** | {r['rounds_with_loss']} | "
            f"{med(lost, '{:g}')} / {mx(lost, '{:g}')} | {med(win, '{:.1f}')} / {mx(win, '{:.1f}')} | "
            f"{med(last, '{:.1f}')} | {med(fo, '{:g}')} | {r['corrupt']} |"
        )
print("| profile | store ↔ primary RTT | primary ↔ standby RTT | rounds | acknowledged | lost | rounds with loss | lost per lossy round (median / max) | oldest lost ack before the kill, ms (median / max) | last ack before the kill, ms (median) | kill to store on promoted standby, ms (median) | corrupt |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
print("\n".join(rows))
