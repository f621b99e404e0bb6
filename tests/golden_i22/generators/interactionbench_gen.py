"""Seeded edge distributions over the InteractionBench golden cases (issue 22), scored by the transcribed reference
(/tmp/ref-ib/oracle.py); every case it scores is written in the golden format with its expected report."""
import copy, json, random, sys
sys.path[:0] = ["/tmp/ref-ib"]
from oracle import expected
SRC = "/work/wt-i22s/../shared/golden/interactionbench/"
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 22)
base = [c for f in ("cases", "fuzz_cases") for c in json.load(open(SRC + f + ".json"))["cases"] if not c.get("judge")]


def answers(c):
    for it in (c["items"] if not c.get("annotation_files") else []):
        for a in it.get("answers") or []:
            if isinstance(a, dict):
                yield it, a


def emissions(c):
    for p in c["preds"]:
        if isinstance(p, dict) and isinstance(p.get("emissions"), list):
            for e in p["emissions"]:
                if isinstance(e, dict) and type(e.get("t")) in (int, float):
                    yield p, e


def events(c):
    ts = [a["time_s"] for _, a in answers(c) if type(a.get("time_s")) in (int, float)]
    ts += [it.get("question_time_s") for it in c["items"] if type(it.get("question_time_s")) in (int, float)]
    return ts or [0]


def m_int_times(c):
    for _, a in answers(c):
        if type(a.get("time_s")) is float:
            a["time_s"] = int(round(a["time_s"]))
    for _, e in emissions(c):
        e["t"] = int(round(e["t"]))


def m_edges(c):
    ev = events(c)
    tol = float((c.get("config") or {}).get("pre_tol", 1.0)) if (c.get("config") or {}).get("pre_tol") != "inf" else 1.0
    d = float((c.get("config") or {}).get("delta", 5.0))
    for _, e in emissions(c):
        e["t"] = rng.choice(ev) + rng.choice([0, -tol, d, -tol - 1e-9, 1e-9, d + 1e-9])


def m_decimals(c):
    for _, a in answers(c):
        if type(a.get("time_s")) in (int, float):
            a["time_s"] = a["time_s"] + rng.random() / 7 + 1e-10
    for _, e in emissions(c):
        e["t"] = e["t"] + rng.random() / 3 + 1e-11


SETTINGS = {"delta": [1e-12, 1e-6, 0.5, 5, 1e6, "inf"], "pre_tol": [0, 1e-12, -0.5, 0.25, 1e6, "inf", "-inf"],
            "gate_thresh": [-1.0, 0.0, 1.0, 1.5]}


def m_settings(c):
    cfg = c.setdefault("config", {})
    for k, vals in SETTINGS.items():
        if rng.random() < 0.6:
            v = rng.choice(vals)
            cfg[k] = float(v) if k != "pre_tol" or v != "inf" else "inf"
    if rng.random() < 0.5:
        cfg["use_gate"] = True
    if rng.random() < 0.3:
        cfg["skip_missing"] = True


def m_items(c):
    ids = [f"{it['video_id']}#{it['item_index']}" for it in c["items"]]
    choice = rng.randrange(4)
    c.setdefault("config", {})["items"] = ([] if choice == 0 else rng.sample(ids, max(1, len(ids) // 2)) + ["ghost#9"]
                                           if choice == 1 else ids + ids[:2] if choice == 2 else ["# " + ids[0]] + ids[1:])


def m_mcq(c):
    key = []
    for it in c["items"]:
        if rng.random() < 0.7:
            n = rng.choice([1, 2, 3, 5, 6])
            key.append({"item_id": f"{it['video_id']}#{it['item_index']}", "answer_text": "the red cup",
                        "distractors": [f"option {k}" for k in range(n)],
                        "correct_index": rng.choice([-1, -1, -2, 0, n, 1])})
    c["mcq_key"] = key
    for p, e in emissions(c):
        e["content"] = rng.choice(["A", "(b)", "F", "Answer: C", "the red cup", "option 0", "d.", "E) option 4", "f"])


def m_lists(c):
    for it in c["items"]:
        for k in ("interaction_type", "range_length", "sub_tag"):
            if rng.random() < 0.4:
                it[k] = [it.get(k) or "QA"]


def m_unicode(c):
    words = ["三个苹果", "ｆｉｖｅ", "seven 7", "٣", "Ⅻ", "twenty-one", "ﬁne", "7.0", "0007", "1,024"]
    for _, a in answers(c):
        if rng.random() < 0.5:
            a["content"] = rng.choice(words)
    for _, e in emissions(c):
        e["content"] = rng.choice(words)


def m_messy_preds(c):
    for p in c["preds"]:
        if not isinstance(p, dict):
            continue
        r = rng.random()
        if r < 0.15:
            p["item_index"] = rng.choice([None, "0", 1.0, -1, True])
        elif r < 0.3:
            p["emissions"] = rng.choice([None, [], "", {}])
    c["preds"] += [copy.deepcopy(p) for p in rng.sample(c["preds"], min(2, len(c["preds"])))]
    for _, e in emissions(c):
        if rng.random() < 0.2:
            e["t"] = rng.choice([-3, 10 ** 6, float("inf"), -0.0])


MUTS = {"int_times": m_int_times, "edges": m_edges, "decimals": m_decimals, "settings": m_settings,
        "items": m_items, "mcq": m_mcq, "lists": m_lists, "unicode": m_unicode, "messy_preds": m_messy_preds}
def main():
    out, stops, stopped = [], 0, []
    per = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    for name, mut in MUTS.items():
        for k, b in enumerate(rng.sample(base, per)):
            c = copy.deepcopy(b)
            mut(c)
            if name != "settings" and rng.random() < 0.3:
                m_settings(c)
            c["name"] = f"i22_{name}_{k}"
            c["description"] = f"issue 22 edge distribution '{name}' over {b['name']} (seed {sys.argv[2] if len(sys.argv) > 2 else 22})"
            try:
                c["expected"] = expected(c)
            except Exception as exc:  # noqa: BLE001
                stops += 1
                c["reference_error"] = f"{type(exc).__name__}: {exc}"
                stopped.append(c)
                continue
            out.append(c)
    json.dump({"meta": {"generator": "tests/golden_i22/README.md"}, "cases": out},
              open("/tmp/ref-ib/gen_cases.json", "w"), ensure_ascii=False)
    json.dump({"cases": stopped}, open("/tmp/ref-ib/gen_stops.json", "w"), ensure_ascii=False)
    print(len(out), "cases,", stops, "where the reference stops")


if __name__ == "__main__":
    main()
