"""Which samples to score: batch_summary.json or manifest rows -> GT path, transcript path, scene, sample id (spec §2.5-2.6)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Optional

from .slots import SCENES, load_scene_map, scene_from_video

SUBSETS = ("1q1a_math", "1q1a", "1qna")
TRANSCRIPT_NAMES = ("precise_truncation.json", "wav_transcript_aligned.json", "wav_transcript.json", "output.json")


@dataclass(frozen=True)
class SampleInput:
    """One row to score (status ``ready``) or to list unscored (status ``missing_input``)."""

    status: str
    scene_type: str
    gt_json: Optional[Path]
    model_json: Optional[Path]
    sample_id: Optional[str] = None
    video: Optional[str] = None
    item_index: int = 0


def resolve_data_dir(data_root: Path) -> Path:
    """The folder holding the subsets: ``data_root/data`` if present, else ``data_root`` itself."""
    return data_root / "data" if (data_root / "data").is_dir() else data_root


def repo_root_of(data_root: Path) -> Path:
    """The folder relative paths in batch summaries and manifests are resolved against."""
    data_dir = resolve_data_dir(data_root)
    return data_dir.parent if data_dir != data_root else data_root


def _parts(path: str) -> list[str]:
    return [p for p in str(path).replace("\\", "/").split("/")]


def gt_from_video(data_dir: Path, video: str, scene: str) -> Optional[Path]:
    """Annotation path for a video path (``videos/`` dropped; videos_bench -> 1qna/annotations/<ds>/)."""
    parts = _parts(video)
    if scene == "1QnA":
        if "videos_bench" in parts:
            rel = parts[parts.index("videos_bench") + 1:]
            if rel:
                rel[-1] = PurePosixPath(rel[-1]).with_suffix(".json").name
                cand = data_dir / "1qna" / "annotations" / Path(*rel)
                if cand.exists():
                    return cand
        return None
    for subset in ("1q1a_math", "1q1a"):
        if subset not in parts:
            continue
        rel = parts[parts.index(subset) + 1:]
        if rel and rel[0] == "videos":
            rel = rel[1:]
        if not rel:
            continue
        rel[-1] = PurePosixPath(rel[-1]).with_suffix(".json").name
        cand = data_dir / subset / "annotations" / Path(*rel)
        if cand.exists():
            return cand
    return None


def resolve_output_dir(raw: str, repo_root: Path, output_root: Optional[Path]) -> Optional[Path]:
    """The sample's output folder: as written (absolute or under the repo root), else under output_root."""
    if not raw:
        return None
    path = Path(raw)
    for cand in ([path] if path.is_absolute() else [repo_root / path]):
        if cand.is_dir():
            return cand.resolve()
    if output_root is None:
        return None
    raw_parts = [p for p in _parts(raw) if p]
    hinted = [s for s in SUBSETS if s in raw_parts]
    ordered = hinted + [s for s in SUBSETS if s not in hinted]
    for cand in [output_root / path.name] + [output_root / s / path.name for s in ordered]:
        if cand.exists():
            return cand.resolve()
    matches = [p for p in output_root.rglob(path.name) if p.is_dir()]
    return matches[0].resolve() if len(matches) == 1 else None


def transcript_in(output_dir: Path, model_json_name: Optional[str]) -> Optional[Path]:
    """The named transcript, or the first of precise_truncation / wav_transcript_aligned / wav_transcript / output."""
    if model_json_name:
        cand = output_dir / model_json_name
        return cand if cand.exists() else None
    for name in TRANSCRIPT_NAMES:
        cand = output_dir / name
        if cand.exists():
            return cand
    return None


def sample_id_from_gt(data_dir: Path, gt: Path, out_dir: Optional[Path], video: str) -> str:
    """`<subset>__<output-dir name>` with the subset taken from the annotation's path under data/ (reference
    `_sample_id_from_gt`): `1qna__...` whatever the video path spells (`1QnA`, `videos_bench/...`)."""
    name = out_dir.name if out_dir is not None else Path(video).stem
    try:
        rel = gt.resolve().relative_to(data_dir.resolve())
        subset = rel.parts[0] if rel.parts else ""
    except ValueError:
        subset = ""
    return f"{subset}__{name}" if subset else name


def items_from_batch_summary(path: Path, data_root: Path, output_root: Optional[Path],
                             model_json_name: Optional[str] = None) -> list[SampleInput]:
    """Rows with status ``ok`` of an inference batch_summary.json, resolved to inputs."""
    try:
        root = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read batch summary ({exc})") from exc
    data_dir = resolve_data_dir(data_root)
    repo_root = repo_root_of(data_root)
    scene_map = load_scene_map(data_dir)
    rows = root.get("results", []) if isinstance(root, dict) else []
    out: list[SampleInput] = []
    for row in rows:
        if not isinstance(row, dict) or str(row.get("status", "ok")) != "ok":
            continue
        index = len(out) + 1
        video = str(row.get("video", "") or "")
        scene = scene_from_video(video, scene_map)
        gt = gt_from_video(data_dir, video, scene)
        out_dir = resolve_output_dir(str(row.get("output_dir", "") or ""), repo_root, output_root)
        model_json = transcript_in(out_dir, model_json_name) if out_dir is not None else None
        if gt is None or model_json is None:
            out.append(SampleInput("missing_input", scene, gt, model_json, None, video, index))
            continue
        sample_id = sample_id_from_gt(data_dir, gt, out_dir, video)
        out.append(SampleInput("ready", scene, gt.resolve(), model_json.resolve(), sample_id, video, index))
    return out


def items_from_manifest(path: Path, base_dir: Path) -> list[SampleInput]:
    """Manifest rows ``{sample_id, gt_json, model_json, scene_type}`` (JSONL, list, or ``{"items": [...]}``)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".jsonl":
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        root = json.loads(text)
        if isinstance(root, dict) and isinstance(root.get("items"), list):
            rows = root["items"]
        elif isinstance(root, list):
            rows = root
        else:
            raise ValueError(f"{path}: manifest must be JSONL, a JSON list, or an object with items[]")
    out: list[SampleInput] = []
    for i, row in enumerate(r for r in rows if isinstance(r, dict)):
        for key in ("gt_json", "model_json", "scene_type"):
            if not row.get(key):
                raise ValueError(f"{path}: manifest item {i + 1} has no {key!r}")
        scene = str(row["scene_type"]).strip()
        if scene not in SCENES:
            raise ValueError(f"{path}: manifest item {i + 1} field 'scene_type' must be one of {SCENES}, got {scene!r}")
        gt, model = Path(str(row["gt_json"])), Path(str(row["model_json"]))
        gt = gt if gt.is_absolute() else base_dir / gt
        model = model if model.is_absolute() else base_dir / model
        sample_id = str(row.get("sample_id") or gt.stem)
        out.append(SampleInput("ready", scene, gt, model, sample_id, row.get("video"), i + 1))
    return out


def load_json_file(path: Path) -> Any:
    """Parse a JSON file (errors propagate; the caller records the sample as failed)."""
    with path.open("r", encoding="utf-8") as f:
        return json.load(f)
