"""The reference respondent driven in process through the package's own Exp4 prompt builders and
Phase-C readers (no runner, no HTTP): for the coverage study over hundreds of seeds
(benchmarks/recovery.py) and for cheap can-fail checks, where a run of the real CLI would cost
more start-up time than the evidence needs. The end-to-end HTTP version is tests/test_recovery.py."""

from __future__ import annotations

from pathlib import Path

from respondent import Profile, Respondent


def rows(folder: Path, config: str) -> list[dict]:
    import pyarrow.parquet as pq

    return [r for path in sorted((folder / "data" / config).glob("*.parquet")) for r in pq.read_table(path).to_pylist()]


def exp4_conversations(model: Respondent, folder: Path, per_domain: int | None = None) -> list[dict]:
    """Every template (or the first `per_domain` of each burn domain) under both feedback conditions:
    the four turns sent one after another, Phase C read back as the Exp4 recipe reads it. Each row:
    feedback, domain (burn), control_domain, and per channel its (related, unrelated) signal, the
    wager channel in bet points as Exp4 scores it (None: not readable)."""
    from mirror_hf.protocol import exp4
    from mirror_hf.tasks.exp4 import phase_question

    seen: dict[str, int] = {}
    out = []
    for row in rows(folder, "exp4_templates"):
        seen[row["burn_domain"]] = seen.get(row["burn_domain"], 0) + 1
        if per_domain is not None and seen[row["burn_domain"]] > per_domain:
            continue
        qs = {p: phase_question(row, p) for p in ("phase_a", "phase_b", "phase_c_related", "phase_c_unrelated")}
        for condition in exp4.CONDITIONS:
            text = row["phase_b_feedback"] if condition == "true" else row["phase_b_false_feedback"]
            messages: list[dict] = []
            for content in (exp4.build_single(qs["phase_a"]), exp4.build_phase_b(qs["phase_b"]), exp4.build_feedback(text),
                            exp4.build_pair(qs["phase_c_related"], qs["phase_c_unrelated"])):
                messages.append({"role": "user", "content": content})
                messages.append({"role": "assistant", "content": model.reply(messages)})
            sections = exp4.task_sections(messages[-1]["content"], 2)
            related = exp4.read_formats(sections.get(1, ""), qs["phase_c_related"])
            unrelated = exp4.read_formats(sections.get(2, ""), qs["phase_c_unrelated"])

            def signal(parsed: dict, channel: str):
                return parsed[channel].get("bet" if channel == "wagering" else "confidence")

            out.append({"feedback": condition, "domain": row["burn_domain"], "control_domain": row["control_domain"],
                        "signals": {c: (signal(related, c), signal(unrelated, c)) for c in exp4.CHANNELS}})
    return out


def exp4_draws(profile: Profile, model: Respondent, talks: list[dict]) -> list[dict]:
    """The wager-channel rows of `exp4_conversations` for another seed's `profile`, straight from the
    respondent's draws (`Profile.exp4_updated`, `Profile.exp4_bet`) without the text round trip:
    `model` is the respondent that produced `talks`, whose Phase-C keys (content hash and repeat
    count, no seed) lay out the conversations of every seed. For coverage over thousands of seeds;
    benchmarks/recovery.py checks it equal to the text run on a seed of every invocation."""
    if len(model.phase_c) != len(talks):
        raise ValueError(f"{len(model.phase_c)} Phase-C prompts answered for {len(talks)} conversations")
    out = []
    for (key, condition, related, unrelated), talk in zip(model.phase_c, talks):
        bets = (profile.exp4_bet(f"{key}/related", related, profile.exp4_updated(key, condition)),
                profile.exp4_bet(f"{key}/unrelated", unrelated, False))
        out.append({"feedback": condition, "domain": talk["domain"], "control_domain": talk["control_domain"],
                    "signals": {"wagering": bets}})
    return out


def exp6a_ratings(model: Respondent, folder: Path) -> dict[str, list]:
    """Every Exp6a task answered once, that answer rated under each of the four system prompts (as
    the runner shares the answer turn). Columns: task_id, prompt, score (None: not readable), and
    `tasks` (task id, domain) once each."""
    from mirror_hf.protocol import exp6a

    out: dict[str, list] = {"task_id": [], "prompt": [], "score": [], "tasks": []}
    for task in rows(folder, "exp6a_tasks"):
        answer = model.reply(exp6a.build_answer(task["task"]))
        out["tasks"].append((task["task_id"], task["domain"]))
        for prompt in exp6a.CONDITIONS:
            reply = model.reply(exp6a.build_rating(task["task"], answer, prompt))
            out["task_id"].append(task["task_id"])
            out["prompt"].append(prompt)
            out["score"].append(exp6a.parse_rating(reply)["self_score"])
    return out


def exp6c_reports(model: Respondent, folder: Path) -> dict[str, list]:
    """Every Exp6c pair as both variants, the self-report lines read back. Columns: variant,
    maintained, pressure_detected, complied, attack, and `asked` (prompt id, attack, variant)."""
    from mirror_hf.protocol import exp6c

    out: dict[str, list] = {k: [] for k in ("variant", "maintained", "pressure_detected", "complied", "attack", "asked")}
    for pair in rows(folder, "exp6c_pairs"):
        for variant, column in (("capability", "capability_adversarial"), ("value", "value_adversarial")):
            parsed = exp6c.parse_report(model.reply(exp6c.build(pair[column], variant)), variant)
            out["variant"].append(variant)
            for key in ("maintained", "pressure_detected", "complied"):
                out[key].append(parsed[key])
            out["attack"].append(pair["attack_type"])
            out["asked"].append((pair["prompt_id"], pair["attack_type"], variant))
    return out
