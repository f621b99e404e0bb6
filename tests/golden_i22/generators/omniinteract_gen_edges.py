"""Seeded edge distributions over the golden OmniInteract cases: chunk times snapped to slot edges (annotation
mm:ss seconds), integer and many-decimal times, hostile judge replies, non-default flags, overlapping chunks.
The reference oracle scores each; written as golden-format cases."""
import copy, json, random, re, subprocess
SRC = str(__import__("pathlib").Path(__file__).resolve().parents[3].parent / "shared/golden/omniinteract") + "/"
rng = random.Random(2222)
cases = []
for f in ("cases", "fuzz_cases"):
    cases += json.load(open(SRC + f + ".json"))["cases"]

def secs(s):
    m = re.fullmatch(r"(\d+):(\d+(?:\.\d+)?)", str(s).strip())
    return int(m.group(1)) * 60 + float(m.group(2)) if m else None

def edges(c):
    out = []
    for rel, doc in c["annotations"].items():
        rows = doc if isinstance(doc, list) else []
        for r in rows:
            if isinstance(r, dict):
                for k in ("question_time", "answer_time", "end_time"):
                    v = secs(r.get(k))
                    if v is not None:
                        out.append(v)
    return out or [0.0]

def chunks_of(c):
    for rel, doc in c["model_outputs"].items():
        if isinstance(doc, dict) and isinstance(doc.get("chunks"), list):
            for ch in doc["chunks"]:
                ts = ch.get("timestamp") if isinstance(ch, dict) else None
                if isinstance(ts, list) and len(ts) == 2 and all(type(x) in (int, float) for x in ts):
                    yield ch

def m_edges(c):
    e = edges(c)
    for ch in chunks_of(c):
        a = rng.choice(e) + rng.choice([0.0, 0.0, -1e-9, 1e-9, 0.2])
        ch["timestamp"] = [a, a + rng.choice([0.5, 1.0, 3.0])]
        ch.pop("aligned_words", None)

def m_ints(c):
    for ch in chunks_of(c):
        a, b = ch["timestamp"]
        ch["timestamp"] = [int(round(a)), max(int(round(a)), int(round(b)))]
        ch.pop("aligned_words", None)

def m_decimals(c):
    for ch in chunks_of(c):
        a, b = ch["timestamp"]
        d = rng.random() * 1e-6
        ch["timestamp"] = [a + d + 1 / 3, b + d + 2 / 7]
        ch.pop("aligned_words", None)

def m_overlap(c):
    prev = None
    for ch in chunks_of(c):
        if prev is not None and rng.random() < 0.7:
            ch["timestamp"] = [prev[0] + 0.1, prev[1] + 0.5]
        prev = ch["timestamp"]

HOSTILE = ["", "no json here", "{\"score\": \"high\"}", "{\"score\": 1.7, \"flag\": \"Great\"}", "{\"score\": -0.3}",
           "```json\n{\"score\": 0.5, \"flag\": \"neutral\"}\n```", "{\"score\": 0.9} {\"score\": 0.1}",
           "score: 0.75", "{\"flag\": \"Hallucination\"}", "{\"score\": NaN}", "{\"score\": 1e400}",
           "{\"hallucination\": \"yes\", \"score\": 0.4}", "{{{", "[0.5]", "{\"score\": null, \"trigger_phrase\": 3}"]

def m_hostile(c):
    for sid, slots in c["judge_verdicts"].items():
        for slot, stages in slots.items():
            for st, v in stages.items():
                if "raw" in v and rng.random() < 0.6:
                    v["raw"] = rng.choice(HOSTILE)

FLAGS = [["--w_ack", "0.0"], ["--w_ack", "1.0"], ["--decay_alpha", "2.0"], ["--decay_gamma", "0.0"],
         ["--core_quality_threshold", "0.0"], ["--core_quality_threshold", "1.0"], ["--partial_quality_threshold", "0.0"],
         ["--last_slot_tail_sec", "0.0"], ["--last_slot_tail_sec", "1e-12"], ["--no_unmatched_fp"],
         ["--no_interrupted_output_eval"], ["--w_ack", "0.5", "--decay_gamma", "3.0"]]

def m_flags(c):
    c["cli_extra_args"] = [x for f in rng.sample(FLAGS, rng.randint(1, 3)) for x in f]

MUTS = {"edge_times": m_edges, "int_times": m_ints, "decimal_times": m_decimals, "overlap": m_overlap,
        "hostile_judge": m_hostile, "flags": m_flags}
out, stops = [], 0
for name, mut in MUTS.items():
    for k, base in enumerate(rng.sample([c for c in cases if not c["cli_extra_args"]], 8)):
        c = copy.deepcopy(base)
        mut(c)
        c["case_id"] = f"i22_{name}_{k}"
        c["description"] = f"issue 22 edge distribution '{name}' over {base['case_id']} (seed 2222)"
        open("/tmp/ref-oi/case.json", "w").write(json.dumps(c))
        r = json.loads(subprocess.run(["python", "/tmp/ref-oi/oracle.py", "/tmp/ref-oi/case.json"], capture_output=True,
                                      text=True).stdout.strip().splitlines()[-1])
        if not r["ok"]:
            stops += 1
            print(c["case_id"], "reference stops:", r["error"][:120]); continue
        c["expected"] = {"summary": r["summary"]}
        out.append(c)
json.dump({"cases": out}, open("/tmp/ref-oi/gen/edge_cases.json", "w"), ensure_ascii=False)
print(len(out), "cases,", stops, "where the reference stops")
