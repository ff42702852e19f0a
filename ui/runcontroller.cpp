// SPDX-License-Identifier: MIT
#include "runcontroller.h"

#include "eval/evaluator.h"
#include "llm/llmprovider.h"
#include "pipeline/pipeline.h"
#include "pipeline/runsetup.h"

#include <QFileInfo>

namespace kwb {

RunController::RunController(QObject *parent)
    : QObject(parent)
    , m_evaluator(std::make_unique<Evaluator>())
{
    // Progress: the evaluator says which phase a job is in; the pipeline says which step runs.
    connect(m_evaluator.get(), &Evaluator::jobStarted, this, [this](const QString &job) {
        m_jobs.insert(job);
        setPhase(tr("evaluating"));
    });
    connect(m_evaluator.get(), &Evaluator::phaseChanged, this, [this](const QString &job, const QString &phase) {
        if (m_jobs.contains(job))
            setPhase(tr("evaluating: %1").arg(phase));
    });
    connect(m_evaluator.get(), &Evaluator::evaluationFinished, this, [this](const QString &job) {
        if (m_jobs.remove(job) && m_jobs.isEmpty() && m_running)
            setPhase(tr("evaluated"));
    });
}

RunController::~RunController()
{
    // The pipeline refers to the provider and the evaluator: it goes first, without recording a
    // final state (a later resume continues it, as after a crash).
    if (m_pipeline)
        m_pipeline->abort();
    m_pipeline.reset();
    m_provider.reset();
}

Evaluator *RunController::evaluator() const
{
    return m_evaluator.get();
}

void RunController::prestart()
{
    if (m_evaluator->prestartEnabled() && !m_evaluator->warmWorkerReady())
        m_evaluator->prestart();
}

bool RunController::isRunning() const
{
    return m_running;
}

bool RunController::start(const NewRunSettings &settings, const QString &runsDir, QString *error)
{
    if (m_pipeline) {
        // One run at a time: the old one ends as an interrupted run (resumable) and goes after
        // this call returns, since its signals may still be on the stack.
        if (m_running)
            m_pipeline->abort();
        m_pipeline.release()->deleteLater();
        if (m_provider)
            m_provider.release()->deleteLater();
        m_running = false;
    }

    pipeline::ProviderRequest request;
    request.taskFile = settings.taskFile;
    request.provider = settings.provider;
    request.model = settings.model;
    request.cassette = m_cassetteOverride;
    request.lenient = !m_cassetteOverride.isEmpty();
    request.namedProviderFallsBack = true; // a person without a key still sees the loop, and is told so
    pipeline::ProviderSetup setup = pipeline::setUpProvider(request);
    if (!setup) {
        if (error)
            *error = setup.errorText;
        return false;
    }
    m_shippedReplay = setup.shippedReplay || !m_cassetteOverride.isEmpty();
    if (!setup.missingKeyProvider.isEmpty())
        m_providerNote = tr("replay of an authored cassette (no API key for %1)").arg(setup.missingKeyProvider);
    else if (m_shippedReplay)
        m_providerNote = tr("replay of an authored cassette");
    else
        m_providerNote = tr("%1 / %2").arg(setup.config.name, setup.config.model);

    pipeline::PipelineConfig cfg;
    settings.applyTo(&cfg);
    cfg.runsDir = runsDir;
    cfg.cassette = setup.cassette;
    if (m_configHook)
        m_configHook(cfg);
    m_provider = std::move(setup.provider);
    m_pipeline = std::make_unique<pipeline::Pipeline>(cfg, m_provider.get(), m_evaluator.get());
    if (!m_detectors)
        m_pipeline->setDetectorHook([](const QString &, const QString &, auto done) { done({}, {}); });

    pipeline::Pipeline *p = m_pipeline.get();
    connect(p, &pipeline::Pipeline::exchangeStarted, this, [this](const LlmExchange &x) {
        setStep(x.callType);
        setPhase(tr("asking the LLM"));
    });
    connect(p, &pipeline::Pipeline::exchangeFinished, this, [this](const LlmExchange &x) {
        setPhase(x.error.isEmpty() ? tr("answer received") : tr("LLM call failed"));
    });
    connect(p, &pipeline::Pipeline::gateOpened, this, [this](const pipeline::GateRequest &g) {
        setStep(g.step);
        setPhase(tr("waiting at gate %1").arg(g.gate));
    });
    connect(p, &pipeline::Pipeline::gateClosed, this, [this] { setPhase(tr("going on")); });
    connect(p, &pipeline::Pipeline::finished, this, [this](RunState state) {
        m_running = false;
        m_jobs.clear();
        setStep({});
        setPhase(tr("run %1").arg(toName(state)));
        emit runFinished(state);
    });

    QString err;
    if (!p->start(&err)) {
        if (error)
            *error = err;
        m_pipeline.reset();
        m_provider.reset();
        return false;
    }
    m_running = true;
    setStep(QFileInfo(cfg.taskFile).completeBaseName());
    setPhase(tr("baseline"));
    emit runStarted(p, p->runDirectory());
    return true;
}

void RunController::stop()
{
    if (!m_pipeline || !m_running)
        return;
    setPhase(tr("stopping"));
    m_pipeline->stop();
    // Stop means now for a person: the evaluation in flight is cancelled rather than waited for.
    const QSet<QString> jobs = m_jobs;
    for (const QString &job : jobs)
        m_evaluator->cancel(job);
}

void RunController::setStep(const QString &step)
{
    m_step = step;
}

void RunController::setPhase(const QString &phase)
{
    m_phase = phase;
    m_progress = m_step.isEmpty() ? m_phase : tr("%1 · %2").arg(m_step, m_phase);
    emit progress(m_progress);
}

} // namespace kwb
