// SPDX-License-Identifier: MIT
#pragma once

#include <QProcessEnvironment>
#include <QString>

namespace kwb::env {

/// The Python interpreter that runs workers: the user's setting, else $KWB_PYTHON, else "python3".
QString pythonInterpreter(const QString &setting = {});

/// The folder holding shipped data (core/eval/worker, prompts, tasks, resources). Looks at
/// $KWB_DATA_DIR, then the source tree the binary was built from, then the install prefix.
QString dataDir();

/// The worker's entry script (…/core/eval/worker/kwb_worker.py or the installed copy).
QString workerScript();

/// Shipped folders, under dataDir().
QString promptsDir();
QString tasksDir();
QString resourcesDir();

/// Where runs go: --runs-dir, else $KWB_RUNS_DIR, else ./runs.
QString runsDir(const QString &cliValue = {});

/// Per-user cache (baselines ...): $XDG_CACHE_HOME/kernel-workbench.
QString cacheDir();

/// Per-user configuration (providers.json, keys.json, prompt overrides): $KWB_CONFIG_DIR, else
/// $XDG_CONFIG_HOME/kernel-workbench, else ~/.config/kernel-workbench.
QString configDir();

/// The environment for a process that runs untrusted code: the caller's environment with every
/// variable that may hold a secret removed (API keys, tokens, passwords, cloud credentials).
QProcessEnvironment scrubbedEnvironment(const QProcessEnvironment &from = QProcessEnvironment::systemEnvironment());

/// True for an environment variable name that may hold a secret.
bool isSecretVariable(const QString &name);

} // namespace kwb::env
