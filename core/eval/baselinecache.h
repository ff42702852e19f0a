// SPDX-License-Identifier: MIT
#pragma once

#include "model/evalresult.h"

#include <QString>

#include <optional>

namespace kwb {

/// Baseline timings (eager, CUDA graph) kept as JSON under env::cacheDir()/baselines, one file per
/// key: task source hash, device name, torch version and timing settings.
class BaselineCache
{
public:
    /// `dir` defaults to env::cacheDir() + "/baselines".
    explicit BaselineCache(const QString &dir = {});

    struct Key {
        QString taskHash;
        QString device; ///< as the worker reports it, e.g. "cuda:0 NVIDIA H100 80GB HBM3"
        QString torchVersion;
        int warmup = 3;
        int repeat = 20;
        int seed = 42;
        bool graph = true;
        QString id() const; ///< sha256 over the fields: the file name
    };

    std::optional<EvalResult> lookup(const Key &key) const;
    /// Stores only a baseline with a valid eager timing; false when it could not write.
    bool store(const Key &key, const EvalResult &result);
    void clear();
    QString dir() const { return m_dir; }

private:
    QString m_dir;
};

} // namespace kwb
