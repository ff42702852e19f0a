// SPDX-License-Identifier: MIT
#include "runloader.h"

#include "store/runstore.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrentRun>

#include <optional>

namespace kwb {

namespace {
struct LoadResult {
    std::optional<Run> run;
    QString error;
    QStringList warnings;
    qint64 elapsedMs = 0;
};
} // namespace

RunLoader::RunLoader(QObject *parent)
    : QObject(parent)
{
}

void RunLoader::load(const QString &dir)
{
    const quint64 generation = ++m_generation;
    m_busy = true;
    emit started(dir);
    auto *watcher = new QFutureWatcher<LoadResult>(this);
    connect(watcher, &QFutureWatcher<LoadResult>::finished, this, [this, watcher, dir, generation] {
        watcher->deleteLater();
        if (generation != m_generation)
            return; // a newer request superseded this one
        m_busy = false;
        LoadResult r = watcher->result();
        if (r.run)
            emit loaded(dir, *r.run, r.warnings, r.elapsedMs);
        else
            emit failed(dir, r.error.isEmpty() ? tr("%1 could not be opened").arg(dir) : r.error);
    });
    watcher->setFuture(QtConcurrent::run([dir] {
        LoadResult r;
        QElapsedTimer timer;
        timer.start();
        r.run = store::openRun(dir, &r.error, &r.warnings);
        r.elapsedMs = timer.elapsed();
        return r;
    }));
}

} // namespace kwb
