import json,statistics,sys,os
import pathlib
R=str(pathlib.Path(__file__).resolve().parent)
def rec(d,run):
    p=f'{R}/headline/{run}/headline.json'
    if not os.path.exists(p): return None
    out={}
    for b in json.load(open(p))['benchmarks']:
        per=[s['total']/s['iterations'] for s in b['samples']]
        out[(b['group'],b['function'])]=statistics.mean(per)
    return out
runs=[('','before','before (e8facaa), direct'),('','direct','after, direct'),('','rtt-0','after, proxy 0'),('','rtt-250us','after, 0.25 ms'),('','rtt-1ms','after, 1 ms')]
data={r[2]:rec(r[0],r[1]) for r in runs}
profiles=['postgres','postgres-async','postgres-uncached','redis','redis-aof']
print("<!-- TABLE_UPDATE -->")
print("### update per commit against the storage floor\n")
print("| run | profile | update / commit (ms) | floor/commit (ms) | ratio |\n|---|---|---:|---:|---:|")
for name,d in data.items():
    if not d: continue
    for p in profiles:
        u=d.get(('scenario/update',p)); f=d.get(('floor/commit',p))
        if u is None or f is None: continue
        print(f"| {name} | `{p}` | {u/1e6/1000:.3f} | {f/1e6:.3f} | {u/1000/f:.2f} |")
print("\n<!-- TABLE_SUITE -->")
print("### suite (ms) against added round trip\n")
names=list(data)
def suite_table(cols, base):
    print("| profile | "+" | ".join(cols)+" | 1 ms ÷ direct |\n|---|"+"---:|"*(len(cols)+1))
    for p in profiles:
        vals=[(data[n] or {}).get(('scenario/suite',p)) for n in cols]
        if all(v is None for v in vals): continue
        cells=[f"{v/1e6:.0f}" if v else "–" for v in vals]
        a=vals[base]; z=vals[-1]
        ratio=f"{z/a:.2f}" if a and z else "–"
        print(f"| `{p}` | "+" | ".join(cells)+f" | {ratio} |")
suite_table(names[:5], 1)
print("\n<!-- TABLE_LOAD -->")
print("### load: writer alone (10 changes per commit, 5k leaves, offered 200/s, 5 s)\n")
print("| profile | before (e8facaa) | after, proxy 0 | 0.25 ms | 1 ms |\n|---|---:|---:|---:|---:|")
for p in ['postgres','postgres-async','redis','redis-aof']:
    cells=[]
    for d in ['before','0','250us','1ms']:
        f=f'{R}/load/{d}/{p}/load.json'
        if not os.path.exists(f): cells.append('–'); continue
        h=json.load(open(f))['headline']
        cells.append(f"{h['commit']['per_sec']:.0f}/s (p50 {h['commit']['p50_us']/1000:.1f} ms)")
    print(f"| `{p}` | "+" | ".join(cells)+" |")

print("\n<!-- TABLE_PROBE -->")
print("### the proxy's own cost\n")
lines=open(f"{R}/probe.txt").read().splitlines()
print("| set RTT | straight, median | through the proxy, median | through the proxy, p99 | added beyond the set RTT |\n|---|---:|---:|---:|---:|")
for l in lines[1:]:
    parts=l.split()
    if len(parts)>=9:
        print(f"| {parts[0]} | {parts[1]} µs | {parts[3]} µs | {parts[5]} µs | {parts[7]} µs |")

print("\n<!-- TABLE_PHASES -->")
print("### phases\n")
print("| `postgres` suite | storage reads | their time | commit phase | suite | suite ÷ commit phase |\n|---|---:|---:|---:|---:|---:|")
for name,f in [("before (`e8facaa`)","before.json"),("after, batched reads + cache","after.json")]:
    p=f"{R}/phases/{f}"
    if not os.path.exists(p): continue
    d=json.load(open(p))
    rows=d['rows'] if isinstance(d,dict) and 'rows' in d else d
    for r in (rows if isinstance(rows,list) else []):
        if r.get('profile')=='postgres' and r.get('scenario')=='suite':
            ph=r['phases']; sp=r['spans']
            print(f"| {name} | {sp.get('storage_read',0):,} | {ph.get('storage_read',0)/1e6:,.0f} ms | {ph.get('commit',0)/1e6:,.0f} ms | {r['total_ns']/1e6:,.0f} ms | {r['total_ns']/max(ph.get('commit',1),1):.2f} |")
