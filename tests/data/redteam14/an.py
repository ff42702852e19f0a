import json,statistics as st,sys
for fn in sys.argv[1:]:
    d=json.loads(open(fn).read().splitlines()[-1]); t=d["timed"]
    o=[''.join(x[0] for x in r) for r in t['order']]; ev=t["every"]; g={}
    for i,r in enumerate(o):
        g.setdefault(r,[]).append((ev["eager"][i], ev["candidate"][i], ev["dry"][i]))
    print(fn, "clean eager med", round(st.median(d["clean"]["eager"]),2), "dry", round(st.median(d["clean"]["dry"]),2))
    for k in sorted(g): print("  ",k,len(g[k]),"eager",round(st.median(x[0] for x in g[k]),2),"cand",round(st.median(x[1] for x in g[k]),2),"dry",round(st.median(x[2] for x in g[k]),2))
