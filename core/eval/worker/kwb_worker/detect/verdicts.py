# SPDX-License-Identifier: MIT
"""Verdict dictionaries in the protocol's form (core/eval/PROTOCOL.md)."""


def evidence(first, last=None, text=""):
    return {"first_line": int(first or 0), "last_line": int(last or first or 0), "text": text}


def verdict(detector, outcome, severity, summary, evidence_list=(), fix=""):
    assert outcome in ("yes", "no", "cannot_tell")
    assert severity in ("info", "warning", "error", "critical")
    unique = []
    for e in evidence_list:  # the same fact at the same place once
        if e not in unique:
            unique.append(e)
    return {"detector": detector, "outcome": outcome, "severity": severity, "summary": summary,
            "evidence": unique, "suggested_fix": fix}


def no(detector, summary, evidence_list=()):
    return verdict(detector, "no", "info", summary, evidence_list)


def cannot_tell(detector, summary, evidence_list=()):
    return verdict(detector, "cannot_tell", "info", summary, evidence_list)


def graded(detector, hard, soft, hard_summary, soft_summary, fix, no_summary, hard_severity="error",
           soft_severity="warning"):
    """A "yes" at `hard_severity` when there is hard evidence (soft evidence shown with it), at
    `soft_severity` on soft evidence alone, else a "no"; evidence in source order."""
    if not hard and not soft:
        return no(detector, no_summary)
    ordered = sorted(list(hard) + list(soft), key=lambda e: (e["first_line"], e["last_line"]))
    if hard:
        return verdict(detector, "yes", hard_severity, hard_summary, ordered, fix)
    return verdict(detector, "yes", soft_severity, soft_summary, ordered, fix)
