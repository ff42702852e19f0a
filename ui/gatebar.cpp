// SPDX-License-Identifier: MIT
#include "gatebar.h"

#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace kwb {

using pipeline::GateAction;
using pipeline::GateDecision;
using pipeline::GatePoint;

namespace {
QString pointText(GatePoint p)
{
    switch (p) {
    case GatePoint::BeforeLlm:
        return GateBar::tr("before the LLM call");
    case GatePoint::AfterGeneration:
        return GateBar::tr("after generation, before evaluation");
    case GatePoint::AfterEvaluation:
        return GateBar::tr("after evaluation");
    }
    return {};
}

// Object names for tests and style sheets; gate.cpp's toName() would tie this widget to the pipeline library.
QString objectNameOf(GateAction a)
{
    switch (a) {
    case GateAction::Approve:
        return QStringLiteral("gate_approve");
    case GateAction::EditPrompt:
        return QStringLiteral("gate_edit_prompt");
    case GateAction::EditCode:
        return QStringLiteral("gate_edit_code");
    case GateAction::Reprompt:
        return QStringLiteral("gate_reprompt");
    case GateAction::Skip:
        return QStringLiteral("gate_skip");
    case GateAction::UseAsBase:
        return QStringLiteral("gate_use_as_base");
    case GateAction::Stop:
        return QStringLiteral("gate_stop");
    case GateAction::Override:
        return QStringLiteral("gate_override");
    }
    return {};
}
} // namespace

GateBar::GateBar(QWidget *parent)
    : QFrame(parent)
    , m_title(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_reprompt(new QLineEdit(this))
{
    setObjectName(QStringLiteral("gateBar"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    m_ask = [this](const QString &title, const QString &label, const QString &initial) -> std::optional<QString> {
        bool ok = false;
        const QString text = QInputDialog::getMultiLineText(this, title, label, initial, &ok);
        return ok ? std::optional<QString>(text) : std::nullopt;
    };
    m_codeProvider = [this] { return m_request ? m_request->code : QString(); };

    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    m_reprompt->setPlaceholderText(tr("Follow-up for the LLM (Re-prompt)…"));
    m_reprompt->setClearButtonEnabled(true);

    // Two rows of buttons: in one row they asked the code area for 660 px, which squeezed every
    // dock at 1280x720.
    auto *buttons = new QHBoxLayout;
    buttons->setSpacing(4);
    auto *moreButtons = new QHBoxLayout;
    moreButtons->setSpacing(4);
    QHBoxLayout *row = buttons;
    auto add = [&](GateAction a, const QString &text, const QString &tip) { row->addWidget(addButton(a, text, tip)); };
    add(GateAction::Approve, tr("&Approve"), tr("Go on as planned"));
    add(GateAction::EditPrompt, tr("Edit &prompt…"), tr("Change the prompt before it is sent"));
    add(GateAction::EditCode, tr("Edit &code"), tr("Edit the candidate in the code view, then submit it as a manual edit"));
    // The follow-up gets a row of its own: squeezed between buttons it showed a few letters only.
    auto *repromptRow = new QHBoxLayout;
    repromptRow->setSpacing(4);
    repromptRow->addWidget(m_reprompt, 1);
    repromptRow->addWidget(addButton(GateAction::Reprompt, tr("&Re-prompt"), tr("Send the follow-up in the same conversation")));
    add(GateAction::UseAsBase, tr("Use as &base"), tr("Build what follows on the candidate selected in the tree"));
    row = moreButtons;
    add(GateAction::Skip, tr("S&kip stage"), tr("Skip this step"));
    add(GateAction::Override, tr("&Override integrity…"), tr("Accept an integrity violation; asks for a written reason"));
    add(GateAction::Stop, tr("&Stop"), tr("Stop the run; it can be resumed"));
    m_buttons.value(int(GateAction::Approve))->setDefault(true);

    connect(m_buttons.value(int(GateAction::Approve)), &QPushButton::clicked, this, [this] { decide(GateAction::Approve); });
    connect(m_buttons.value(int(GateAction::EditPrompt)), &QPushButton::clicked, this, &GateBar::onEditPrompt);
    connect(m_buttons.value(int(GateAction::EditCode)), &QPushButton::clicked, this, &GateBar::onEditCode);
    connect(m_buttons.value(int(GateAction::Reprompt)), &QPushButton::clicked, this, &GateBar::onReprompt);
    connect(m_reprompt, &QLineEdit::returnPressed, this, &GateBar::onReprompt);
    connect(m_reprompt, &QLineEdit::textChanged, this, &GateBar::updateButtons);
    connect(m_buttons.value(int(GateAction::Skip)), &QPushButton::clicked, this, [this] { decide(GateAction::Skip); });
    connect(m_buttons.value(int(GateAction::UseAsBase)), &QPushButton::clicked, this, &GateBar::onUseAsBase);
    connect(m_buttons.value(int(GateAction::Override)), &QPushButton::clicked, this, &GateBar::onOverride);
    connect(m_buttons.value(int(GateAction::Stop)), &QPushButton::clicked, this, [this] { decide(GateAction::Stop); });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->setSpacing(4);
    layout->addWidget(m_title);
    layout->addWidget(m_summary);
    buttons->addStretch(1);
    moreButtons->addStretch(1);
    layout->addLayout(buttons);
    layout->addLayout(moreButtons);
    layout->addLayout(repromptRow);
    hide();
}

QPushButton *GateBar::addButton(GateAction action, const QString &text, const QString &toolTip)
{
    auto *b = new QPushButton(text, this);
    b->setToolTip(toolTip);
    b->setObjectName(objectNameOf(action));
    m_buttons.insert(int(action), b);
    return b;
}

void GateBar::showRequest(const pipeline::GateRequest &request)
{
    if (m_editingCode) {
        m_editingCode = false;
        emit codeEditingChanged(false);
    }
    m_request = request;
    m_reprompt->clear();
    QString title = tr("Waiting %1: %2").arg(pointText(request.point), request.step.isEmpty() ? request.gate : request.step);
    if (!request.candidateId.isEmpty())
        title += tr("  ·  candidate %1").arg(request.candidateId);
    if (request.failed)
        title += tr("  ·  failed");
    m_title->setText(title);
    m_summary->setText(request.summary);
    m_summary->setVisible(!request.summary.isEmpty());
    updateButtons();
    show();
}

void GateBar::closeRequest()
{
    if (m_editingCode) {
        m_editingCode = false;
        emit codeEditingChanged(false);
    }
    m_request.reset();
    hide();
}

void GateBar::setSelectedCandidate(const QString &id)
{
    m_selected = id;
    updateButtons();
}

bool GateBar::hasIntegrityViolation() const
{
    if (!m_request || !m_request->eval)
        return false;
    for (const Verdict &v : m_request->eval->runtimeChecks)
        if (v.isIntegrityViolation())
            return true;
    return false;
}

void GateBar::updateButtons()
{
    const QList<GateAction> allowed = m_request ? m_request->allowed : QList<GateAction>();
    for (auto it = m_buttons.cbegin(); it != m_buttons.cend(); ++it) {
        const auto action = GateAction(it.key());
        bool on = allowed.contains(action);
        if (action == GateAction::Reprompt)
            on = on && !m_reprompt->text().trimmed().isEmpty();
        if (action == GateAction::UseAsBase)
            on = on && !m_selected.isEmpty();
        // Overriding means something only when there is a violation to override.
        if (action == GateAction::Override)
            it.value()->setVisible(on && hasIntegrityViolation());
        it.value()->setEnabled(on);
    }
    m_reprompt->setEnabled(allowed.contains(GateAction::Reprompt));
    auto *edit = m_buttons.value(int(GateAction::EditCode));
    edit->setText(m_editingCode ? tr("Submit edited &code") : tr("Edit &code"));
    auto *base = m_buttons.value(int(GateAction::UseAsBase));
    base->setText(m_selected.isEmpty() ? tr("Use as &base") : tr("Use %1 as &base").arg(m_selected));
}

void GateBar::decide(GateAction action, const QString &text, const QString &reason, const QString &candidateId)
{
    if (!m_request)
        return;
    GateDecision d = GateDecision::make(action, text, reason);
    d.candidateId = candidateId;
    closeRequest();
    emit decided(d);
}

void GateBar::onEditPrompt()
{
    if (!m_request)
        return;
    // The last user message is the part a person rewrites; earlier turns stay as they were.
    QString initial;
    for (auto it = m_request->messages.crbegin(); it != m_request->messages.crend(); ++it)
        if (it->role == QLatin1String("user")) {
            initial = it->content;
            break;
        }
    const auto text = m_ask(tr("Edit prompt"), tr("The user message to send instead:"), initial);
    if (text && !text->trimmed().isEmpty())
        decide(GateAction::EditPrompt, *text);
}

void GateBar::onEditCode()
{
    if (!m_request)
        return;
    if (!m_editingCode) {
        m_editingCode = true;
        updateButtons();
        emit codeEditingChanged(true);
        return;
    }
    const QString code = m_codeProvider();
    decide(GateAction::EditCode, code, QString(), m_request->candidateId);
}

void GateBar::onReprompt()
{
    const QString text = m_reprompt->text().trimmed();
    if (m_request && !text.isEmpty() && m_request->allowed.contains(GateAction::Reprompt))
        decide(GateAction::Reprompt, text, QString(), m_request->candidateId);
}

void GateBar::onUseAsBase()
{
    if (!m_selected.isEmpty())
        decide(GateAction::UseAsBase, QString(), QString(), m_selected);
}

void GateBar::onOverride()
{
    if (!m_request)
        return;
    // An override lets a flagged kernel become "best": it is recorded with a person's written reason.
    const auto reason = m_ask(tr("Override integrity verdict"),
                              tr("Why is %1 acceptable despite its integrity violation? (recorded in the run)")
                                  .arg(m_request->candidateId),
                              QString());
    if (reason && !reason->trimmed().isEmpty())
        decide(GateAction::Override, reason->trimmed(), reason->trimmed(), m_request->candidateId);
}

} // namespace kwb
