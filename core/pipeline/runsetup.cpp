// SPDX-License-Identifier: MIT
#include "pipeline/runsetup.h"

#include "llm/llmprovider.h"
#include "llm/replayprovider.h"
#include "pipeline/cassettes.h"
#include "tasks/taskindex.h"

#include <QFileInfo>

namespace kwb::pipeline {

ProviderSetup setUpProvider(const ProviderRequest &request)
{
    ProviderSetup out;
    QString cassette = request.cassette;
    bool shipped = !cassette.isEmpty() && request.cassetteIsShipped;
    llm::ProviderConfig pc;
    if (cassette.isEmpty()) {
        const QString name = request.provider.isEmpty()
                                 ? qEnvironmentVariable("KWB_PROVIDER", QStringLiteral("deepseek"))
                                 : request.provider;
        bool found = false;
        pc = llm::findProvider(name, &found);
        if (!found) {
            out.error = ProviderSetupError::UnknownProvider;
            out.errorText = QStringLiteral("unknown provider '%1'").arg(name);
            return out;
        }
        if (pc.wire == QLatin1String("replay")) {
            // The replay provider named with no cassette: the task's shipped one.
            cassette = shippedCassette(QFileInfo(request.taskFile).completeBaseName());
            if (cassette.isEmpty()) {
                out.error = ProviderSetupError::ProviderFailed;
                out.errorText = QStringLiteral("no cassette to replay: none is shipped for %1")
                                    .arg(QFileInfo(request.taskFile).completeBaseName());
                return out;
            }
            shipped = true;
        } else if (!llm::hasApiKey(pc)) {
            const QString fallback = shippedCassette(QFileInfo(request.taskFile).completeBaseName());
            if ((!request.provider.isEmpty() && !request.namedProviderFallsBack) || fallback.isEmpty()) {
                out.error = ProviderSetupError::NoApiKey;
                out.errorText = QStringLiteral("no API key for provider '%1' (set %2 or add it to %3/keys.json)%4")
                                    .arg(pc.name, pc.apiKeyEnv, llm::configDir(),
                                         fallback.isEmpty() ? QStringLiteral("; no shipped cassette for this task either")
                                                            : QString());
                return out;
            }
            out.missingKeyProvider = pc.name;
            cassette = fallback;
            shipped = true;
        }
    }
    if (!cassette.isEmpty()) {
        pc = llm::findProvider(QStringLiteral("replay"));
        pc.name = QStringLiteral("replay");
        pc.wire = QStringLiteral("replay");
        pc.cassette = QFileInfo(cassette).absoluteFilePath();
        // A shipped cassette's prompts hold another machine's latencies and device name: match leniently.
        pc.replayLenient = shipped || request.lenient;
        out.cassette = pc.cassette;
        out.shippedReplay = shipped;
    }
    if (!request.model.isEmpty())
        pc.model = request.model;

    QString error;
    auto provider = llm::createProvider(pc, &error);
    if (!provider) {
        out.error = ProviderSetupError::ProviderFailed;
        out.errorText = error;
        return out;
    }
    if (auto *replay = qobject_cast<llm::ReplayProvider *>(provider.get())) {
        if (!replay->isValid()) {
            out.error = ProviderSetupError::ProviderFailed;
            out.errorText = replay->loadError();
            return out;
        }
        out.authoredBy = replay->metadata().value(QStringLiteral("authored_by")).toString();
    }
    out.config = pc;
    out.provider = std::move(provider);
    return out;
}

QString resolveTaskFile(const QString &fileOrName, QString *error)
{
    const auto task = TaskIndex::resolve(fileOrName, error);
    return task ? task->path : QString();
}

} // namespace kwb::pipeline
