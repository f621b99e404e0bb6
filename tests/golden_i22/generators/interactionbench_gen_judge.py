"""Hostile stored verdicts for InteractionBench's stored-verdict judges (cache:, ensemble:): the judge cases of the
shared golden files with verdict values changed (non-binary, ints, booleans, text, null, out of range), scored by
the transcribed reference; plus the issue's other distributions applied to judge cases."""
import copy, json, random, sys
sys.path[:0] = ["/tmp/ref-ib"]
from oracle import expected
import gen  # noqa: E402  (its mutations; running it writes gen_cases.json, harmless)
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
SRC = "/work/wt-i22s/../shared/golden/interactionbench/"
base = [c for f in ("cases", "fuzz_cases") for c in json.load(open(SRC + f + ".json"))["cases"] if c.get("judge")]
VALUES = [0.7, 1, 0, True, False, "1", None, 2, -1, 0.5, 0.25, 1e-9]


def hostile(c):
    for rows in c["judge"]["files"].values():
        for r in rows:
            if rng.random() < 0.5:
                r["s"] = rng.choice(VALUES)


out, stopped = [], []
for k in range(int(sys.argv[1]) if len(sys.argv) > 1 else 30):
    b = rng.choice(base)
    c = copy.deepcopy(b)
    hostile(c)
    if rng.random() < 0.5:
        rng.choice([gen.m_int_times, gen.m_edges, gen.m_settings, gen.m_unicode, gen.m_lists])(c)
    c["name"] = f"i22_judge_{k}"
    c["description"] = f"issue 22 hostile stored verdicts over {b['name']}"
    try:
        c["expected"] = expected(c)
    except Exception as exc:  # noqa: BLE001
        c["reference_error"] = f"{type(exc).__name__}: {exc}"
        stopped.append(c)
        continue
    out.append(c)
json.dump({"cases": out}, open("/tmp/ref-ib/gen_judge_cases.json", "w"), ensure_ascii=False)
json.dump({"cases": stopped}, open("/tmp/ref-ib/gen_judge_stops.json", "w"), ensure_ascii=False)
print(len(out), "cases,", len(stopped), "where the reference stops")
