"""Seeded annotation layouts (annotation_files) for the transcribed InteractionBench reference: two files with one
video_id, files outside <domain>/<video_id>.json, results/ beside annotations/, category as domain, missing
video_id/domain/duration, duration as text, odd item fields; predictions drawn on the items."""
import json, random, sys
sys.path[:0] = ["/tmp/ref-ib"]
from oracle import expected
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
CAPS = ["PTR", "TOA", "CIR", "IVQA", "LVM", "CST", "LCG", "BRC", "XYZ", None]


def item():
    tt = rng.choice(["A", "B", "C", "C", "B", None, "D"])
    cap = rng.choice(CAPS)
    n = rng.randint(0, 3)
    answers = [{"time_s": rng.choice([rng.randint(0, 40), round(rng.uniform(0, 40), rng.randint(0, 6))]),
                "content": rng.choice(["3", "the ball", "SHOULD_REMAIN_SILENT", "", None, "count is 7", "红色"])}
               for _ in range(n)]
    it = {"capability": cap, "time_type": tt, "question": rng.choice(["how many?", "", None, "tell me"]),
          "answers": answers}
    if tt == "A":
        it["question_time_s"] = rng.choice([rng.randint(0, 40), None, "12"])
    for k in ("is_negative", "auto_number"):
        if rng.random() < 0.2:
            it[k] = rng.choice([True, False, 1, "yes"])
    if rng.random() < 0.3:
        it["sub_tag"] = rng.choice(["counting", "计数型", "goal", ["counting"]])
    if rng.random() < 0.3:
        it["interaction_type"] = rng.choice(["QA", "INS", ["QA"], None])
    if rng.random() < 0.3:
        it["range_length"] = rng.choice(["short", "long", None, 3])
    return it


def video(vid, with_id=True):
    doc = {"items": [item() for _ in range(rng.randint(1, 4))]}
    if with_id:
        doc["video_id"] = vid
    r = rng.random()
    if r < 0.3:
        doc["category"] = rng.choice(["cat1", "cat2"])
    elif r < 0.8:
        doc["domain"] = rng.choice(["d1", "d2", "", None])
    doc["duration_s"] = rng.choice([30, 45.5, "40", None, 0, 60])
    return doc


def layout():
    files = {}
    vids = [f"v{k}" for k in range(rng.randint(1, 4))]
    kind = rng.choice(["plain", "dup", "deep", "legacy", "both", "noid"])
    for v in vids:
        dom = rng.choice(["d1", "d2"])
        if kind == "legacy":
            files[f"results/{dom}/{v}/annotation.json"] = video(v, rng.random() < 0.5)
        elif kind == "deep":
            files[f"annotations/{dom}/sub/{v}.json"] = video(v)
        elif kind == "noid":
            files[f"annotations/{dom}/{v}.json"] = video(v, False)
        else:
            files[f"annotations/{dom}/{v}.json"] = video(v)
    if kind == "dup":
        files["annotations/d9/other.json"] = video(vids[0])
    if kind == "both":
        files[f"results/d1/{vids[0]}/annotation.json"] = video(vids[0])
    return files


def preds(files):
    out = []
    for doc in files.values():
        vid = doc.get("video_id")
        for k in range(len(doc["items"])):
            if rng.random() < 0.8 and vid:
                out.append({"video_id": vid, "item_index": k,
                            "emissions": [{"t": rng.choice([rng.randint(0, 45), round(rng.uniform(0, 45), 3)]),
                                           "content": rng.choice(["3", "the ball", "7", "红色", "no"])}
                                          for _ in range(rng.randint(0, 4))]})
    for rel in files:  # lines for stem-named videos
        stem = rel.rsplit("/", 1)[-1].removesuffix(".json")
        if stem != "annotation" and rng.random() < 0.3:
            out.append({"video_id": stem, "emissions": [{"t": 5, "content": "3"}]})
    return out


out, stopped = [], []
for k in range(int(sys.argv[1]) if len(sys.argv) > 1 else 40):
    files = layout()
    c = {"name": f"i22_loader_{k}", "description": "issue 22 loader layout (seeded)", "items": [],
         "annotation_files": files, "preds": preds(files), "mcq_key": None, "config": {}, "judge": None}
    if rng.random() < 0.3:
        c["config"] = {"pre_tol": rng.choice([0, "inf", 2.5]), "delta": rng.choice([2.0, 5.0])}
    try:
        c["expected"] = expected(c)
    except Exception as exc:  # noqa: BLE001
        c["reference_error"] = f"{type(exc).__name__}: {exc}"
        stopped.append(c)
        continue
    out.append(c)
json.dump({"cases": out}, open("/tmp/ref-ib/gen_loader_cases.json", "w"), ensure_ascii=False)
json.dump({"cases": stopped}, open("/tmp/ref-ib/gen_loader_stops.json", "w"), ensure_ascii=False)
print(len(out), "cases,", len(stopped), "where the reference stops")
