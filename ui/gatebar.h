// SPDX-License-Identifier: MIT
#pragma once

#include "pipeline/gate.h"

#include <QFrame>
#include <QHash>

#include <functional>
#include <optional>

class QLabel;
class QLineEdit;
class QPushButton;

namespace kwb {

/// The bar that appears while the engine waits at a gate: it says what the engine waits for and
/// offers the actions the gate allows (Approve, Edit prompt, Edit code, Re-prompt with a text box,
/// Skip stage, Use as base, Override integrity, Stop). Each answer leaves as one decided() signal.
/// Only the header-only part of pipeline/gate.h is used, so this widget does not link the pipeline.
class GateBar : public QFrame
{
    Q_OBJECT
public:
    /// Asks a person for text (title, label, initial text); nullopt when cancelled. Replaceable for tests.
    using TextAsker = std::function<std::optional<QString>(const QString &title, const QString &label,
                                                           const QString &initial)>;

    explicit GateBar(QWidget *parent = nullptr);

    /// Shows the bar for a waiting gate; only the actions in request.allowed are enabled.
    void showRequest(const pipeline::GateRequest &request);
    /// Hides the bar (the gate was answered or the run ended).
    void closeRequest();
    bool isOpen() const { return m_request.has_value(); }
    std::optional<pipeline::GateRequest> request() const { return m_request; }
    /// True between "Edit code" and "Submit edited code".
    bool isEditingCode() const { return m_editingCode; }

    void setTextAsker(TextAsker asker) { m_ask = std::move(asker); }
    /// Where the edited code comes from when "Submit edited code" is pressed (the code view).
    void setCodeProvider(std::function<QString()> provider) { m_codeProvider = std::move(provider); }

    QPushButton *button(pipeline::GateAction action) const { return m_buttons.value(int(action)); }
    QLineEdit *repromptEdit() const { return m_reprompt; }

public slots:
    /// The candidate selected in the tree: the one "Use as base" proposes.
    void setSelectedCandidate(const QString &id);

signals:
    void decided(const kwb::pipeline::GateDecision &decision);
    /// "Edit code" was pressed (true) or the edit ended (false): the code view turns editable.
    void codeEditingChanged(bool editing);

private:
    QPushButton *addButton(pipeline::GateAction action, const QString &text, const QString &toolTip);
    void decide(pipeline::GateAction action, const QString &text = {}, const QString &reason = {},
                const QString &candidateId = {});
    void onEditPrompt();
    void onEditCode();
    void onReprompt();
    void onUseAsBase();
    void onOverride();
    void updateButtons();
    bool hasIntegrityViolation() const;

    QLabel *m_title;
    QLabel *m_summary;
    QLineEdit *m_reprompt;
    QHash<int, QPushButton *> m_buttons;
    std::optional<pipeline::GateRequest> m_request;
    QString m_selected;
    bool m_editingCode = false;
    TextAsker m_ask;
    std::function<QString()> m_codeProvider;
};

} // namespace kwb
