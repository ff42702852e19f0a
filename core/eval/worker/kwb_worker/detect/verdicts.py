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
