// SPDX-License-Identifier: MIT
#include "diff/diffview.h"

#include "store/runstore.h"

#include <Qsci/qscilexerpython.h>
#include <Qsci/qsciscintilla.h>

#include <QAction>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QSet>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace kwb {

namespace {

// Marker numbers (line backgrounds) and the current-hunk arrow; indicator for changed characters
// (8 and below are left to lexers and QScintilla's defaults).
enum Marker {
    Removed = DiffView::RemovedMarker,
    Added = DiffView::AddedMarker,
    ChangedLeft = DiffView::ChangedLeftMarker,
    ChangedRight = DiffView::ChangedRightMarker,
    Filler = DiffView::FillerMarker,
    Current = DiffView::CurrentMarker,
};
constexpr int kIndicator = DiffView::ChangeIndicator;
constexpr int kNumberMargin = 0;
constexpr int kSymbolMargin = 1;

QsciScintilla *makeEditor(QWidget *parent, const QString &name)
{
    auto *e = new QsciScintilla(parent);
    e->setObjectName(name);
    e->setUtf8(true);
    e->setReadOnly(true);
    e->setMarginType(kNumberMargin, QsciScintilla::TextMargin);
    e->setMarginType(kSymbolMargin, QsciScintilla::SymbolMargin);
    e->setMarginWidth(kSymbolMargin, 14);
    e->setMarginMarkerMask(kSymbolMargin, 1 << Current);
    e->setMarginMarkerMask(kNumberMargin, 0);
    e->markerDefine(QsciScintilla::Background, Removed);
    e->markerDefine(QsciScintilla::Background, Added);
    e->markerDefine(QsciScintilla::Background, ChangedLeft);
    e->markerDefine(QsciScintilla::Background, ChangedRight);
    e->markerDefine(QsciScintilla::Background, Filler);
    e->markerDefine(QsciScintilla::RightArrow, Current);
    e->indicatorDefine(QsciScintilla::StraightBoxIndicator, kIndicator);
    e->setIndicatorDrawUnder(true, kIndicator);
    e->SendScintilla(QsciScintillaBase::SCI_INDICSETALPHA, kIndicator, 110);
    e->SendScintilla(QsciScintillaBase::SCI_INDICSETOUTLINEALPHA, kIndicator, 200);
    e->setCaretLineVisible(false);
    e->setWrapMode(QsciScintilla::WrapNone);
    return e;
}

/// Sets the text of a read-only editor (QScintilla refuses setText on a read-only document).
void setEditorText(QsciScintilla *e, const QString &text)
{
    e->setReadOnly(false);
    e->setText(text);
    e->setReadOnly(true);
    e->markerDeleteAll();
    e->clearMarginText();
    e->SendScintilla(QsciScintillaBase::SCI_SETINDICATORCURRENT, kIndicator);
    e->SendScintilla(QsciScintillaBase::SCI_INDICATORCLEARRANGE, 0L,
                     e->SendScintilla(QsciScintillaBase::SCI_GETLENGTH));
}

/// Boxes the changed characters of one editor row. Ranges are QString (UTF-16) offsets; Scintilla
/// positions are UTF-8 bytes, so the prefix is measured in bytes.
void markRanges(QsciScintilla *e, int row, const QString &line, const QList<diff::Range> &ranges)
{
    if (ranges.isEmpty())
        return;
    const long lineStart = e->SendScintilla(QsciScintillaBase::SCI_POSITIONFROMLINE, row);
    e->SendScintilla(QsciScintillaBase::SCI_SETINDICATORCURRENT, kIndicator);
    for (const diff::Range &r : ranges) {
        const long from = lineStart + QStringView(line).left(r.start).toUtf8().size();
        const long len = QStringView(line).mid(r.start, r.length).toUtf8().size();
        e->SendScintilla(QsciScintillaBase::SCI_INDICATORFILLRANGE, from, len);
    }
}

void setLexer(QsciScintilla *e, bool python, const QFont &font)
{
    if (python) {
        if (!qobject_cast<QsciLexerPython *>(e->lexer())) {
            auto *lexer = new QsciLexerPython(e);
            lexer->setDefaultFont(font);
            lexer->setFont(font, -1);
            e->setLexer(lexer);
        }
    } else if (e->lexer()) {
        QsciLexer *old = e->lexer();
        e->setLexer(nullptr);
        delete old;
        e->setFont(font);
    }
}

} // namespace

DiffView::DiffView(QWidget *parent)
    : QWidget(parent)
{
    buildUi();
    m_codeProvider = [this](const Candidate &c) { return store::readCode(m_runDir, c); };
    applyColours();
    updateSummary();
}

void DiffView::buildUi()
{
    m_leftPicker = new QComboBox(this);
    m_leftPicker->setObjectName(QStringLiteral("leftPicker"));
    m_rightPicker = new QComboBox(this);
    m_rightPicker->setObjectName(QStringLiteral("rightPicker"));
    for (QComboBox *c : {m_leftPicker, m_rightPicker}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(18);
        connect(c, &QComboBox::currentIndexChanged, this, &DiffView::onPickerChanged);
    }
    m_quickPick = new QComboBox(this);
    m_quickPick->setObjectName(QStringLiteral("quickPick"));
    m_quickPick->addItem(tr("Quick pick…"));
    m_quickPick->addItem(tr("Parent → child"), int(QuickPick::ParentToChild));
    m_quickPick->addItem(tr("Seed → repair"), int(QuickPick::SeedToRepair));
    m_quickPick->addItem(tr("Repair → algo-opt"), int(QuickPick::RepairToAlgoOpt));
    m_quickPick->addItem(tr("Seed → algo-opt"), int(QuickPick::SeedToAlgoOpt));
    connect(m_quickPick, &QComboBox::activated, this, [this](int index) {
        if (index > 0)
            applyQuickPick(static_cast<QuickPick>(m_quickPick->itemData(index).toInt()));
        m_quickPick->setCurrentIndex(0);
    });

    auto makeAction = [this](const QString &text, const QKeySequence &key, auto fn) {
        auto *a = new QAction(text, this);
        a->setShortcut(key);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut); // only while the diff has focus
        connect(a, &QAction::triggered, this, fn);
        addAction(a);
        m_actions.append(a);
        return a;
    };
    QAction *prev = makeAction(tr("Previous change"), QKeySequence(Qt::ALT | Qt::Key_Up), [this] { previousChange(); });
    QAction *next = makeAction(tr("Next change"), QKeySequence(Qt::ALT | Qt::Key_Down), [this] { nextChange(); });
    QAction *mode = makeAction(tr("Side by side / inline"), QKeySequence(Qt::ALT | Qt::Key_U), [this] {
        setMode(m_mode == Mode::SideBySide ? Mode::Inline : Mode::SideBySide);
    });
    auto button = [this](QAction *a, const QString &text) {
        auto *b = new QToolButton(this);
        b->setDefaultAction(a);
        b->setText(text);
        b->setToolTip(QStringLiteral("%1 (%2)").arg(a->text(), a->shortcut().toString(QKeySequence::NativeText)));
        return b;
    };
    m_modeButton = button(mode, tr("Inline"));
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("diffSummary"));

    auto *header = new QHBoxLayout;
    header->setContentsMargins(0, 0, 0, 0);
    header->addWidget(m_leftPicker, 1);
    header->addWidget(new QLabel(QStringLiteral("→"), this));
    header->addWidget(m_rightPicker, 1);
    header->addWidget(m_quickPick);
    header->addWidget(button(prev, QStringLiteral("▲")));
    header->addWidget(button(next, QStringLiteral("▼")));
    header->addWidget(m_modeButton);
    header->addWidget(m_summary);

    m_left = makeEditor(this, QStringLiteral("diffLeft"));
    m_right = makeEditor(this, QStringLiteral("diffRight"));
    m_inline = makeEditor(this, QStringLiteral("diffInline"));
    m_leftTitle = new QLabel(this);
    m_rightTitle = new QLabel(this);
    auto column = [this](QLabel *title, QsciScintilla *editor) {
        auto *w = new QWidget(this);
        auto *l = new QVBoxLayout(w);
        l->setContentsMargins(0, 0, 0, 0);
        l->setSpacing(1);
        title->setTextFormat(Qt::PlainText);
        l->addWidget(title);
        l->addWidget(editor);
        return w;
    };
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(column(m_leftTitle, m_left));
    split->addWidget(column(m_rightTitle, m_right));
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(split);
    m_stack->addWidget(m_inline);

    // Both sides have the same number of rows (fillers pad the shorter side), so the other side
    // simply takes the same first line and x offset. Scroll-bar drags arrive as valueChanged;
    // wheel, keys and setFirstVisibleLine as Scintilla's (deferred) update-UI notification. The
    // deferred notifications of both editors may come in any order, so a side is followed only
    // when it moved away from the position last synchronised.
    auto follow = [this](QsciScintilla *from, QsciScintilla *to) {
        auto apply = [this, from, to] {
            if (m_syncing || m_mode != Mode::SideBySide)
                return;
            const int top = from->firstVisibleLine();
            const long x = from->SendScintilla(QsciScintillaBase::SCI_GETXOFFSET);
            if (top == m_syncedTop && x == m_syncedX)
                return;
            m_syncing = true;
            m_syncedTop = top;
            m_syncedX = x;
            to->setFirstVisibleLine(top);
            to->SendScintilla(QsciScintillaBase::SCI_SETXOFFSET, x);
            m_syncing = false;
        };
        connect(from->verticalScrollBar(), &QScrollBar::valueChanged, this, apply);
        connect(from->horizontalScrollBar(), &QScrollBar::valueChanged, this, apply);
        connect(from, &QsciScintillaBase::SCN_UPDATEUI, this, [apply](int updated) {
            constexpr int kScrolled = 0x4 | 0x8; // SC_UPDATE_V_SCROLL | SC_UPDATE_H_SCROLL
            if (updated & kScrolled)
                apply();
        });
    };
    follow(m_left, m_right);
    follow(m_right, m_left);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(header);
    layout->addWidget(m_stack, 1);

    const QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (QsciScintilla *e : {m_left, m_right, m_inline}) {
        setLexer(e, true, font);
        e->setMarginsFont(font);
    }
    m_left->setMarginWidth(kNumberMargin, QStringLiteral("00000"));
    m_right->setMarginWidth(kNumberMargin, QStringLiteral("00000"));
    m_inline->setMarginWidth(kNumberMargin, QStringLiteral("00000 00000"));
}

void DiffView::setRun(const Run &run, const QString &runDir)
{
    m_run = run;
    m_runDir = runDir;
    m_codeCache.clear();
    m_leftId.clear();
    m_rightId.clear();
    fillPickers();
    compareTexts(QString(), QString(), QString(), QString());
}

void DiffView::updateRun(const Run &run)
{
    m_run = run;
    fillPickers();
    m_fillingPickers = true;
    m_leftPicker->setCurrentIndex(std::max(0, m_leftPicker->findData(m_leftId)));
    m_rightPicker->setCurrentIndex(std::max(0, m_rightPicker->findData(m_rightId)));
    m_fillingPickers = false;
}

void DiffView::setCodeProvider(std::function<QString(const Candidate &)> provider)
{
    m_codeProvider = std::move(provider);
    m_codeCache.clear();
}

void DiffView::setCurrentCandidate(const QString &id)
{
    m_currentId = id;
}

QString DiffView::pickerLabel(const Candidate &c) const
{
    QString s = QStringLiteral("%1  %2").arg(c.id, toName(c.kind));
    if (!c.label.isEmpty())
        s += QStringLiteral("  ") + c.label;
    if (c.eval && c.eval->candidate.isValid())
        s += QStringLiteral("  %1 ms").arg(c.eval->candidate.medianMs, 0, 'g', 4);
    return s;
}

void DiffView::fillPickers()
{
    m_fillingPickers = true;
    for (QComboBox *box : {m_leftPicker, m_rightPicker}) {
        box->clear();
        box->addItem(tr("(text)"), QString());
        for (const Candidate &c : m_run.candidates) {
            box->addItem(pickerLabel(c), c.id);
            box->setItemData(box->count() - 1, pickerLabel(c), Qt::ToolTipRole); // a narrow box elides
        }
    }
    m_fillingPickers = false;
}

void DiffView::onPickerChanged()
{
    if (m_fillingPickers)
        return;
    const QString l = m_leftPicker->currentData().toString();
    const QString r = m_rightPicker->currentData().toString();
    if (!l.isEmpty() && !r.isEmpty() && (l != m_leftId || r != m_rightId))
        compareCandidates(l, r);
}

QString DiffView::codeOf(const QString &id)
{
    auto it = m_codeCache.constFind(id);
    if (it != m_codeCache.constEnd())
        return it.value();
    const Candidate *c = m_run.candidate(id);
    const QString code = c && m_codeProvider ? m_codeProvider(*c) : QString();
    m_codeCache.insert(id, code);
    return code;
}

bool DiffView::compareCandidates(const QString &leftId, const QString &rightId)
{
    const Candidate *l = m_run.candidate(leftId);
    const Candidate *r = m_run.candidate(rightId);
    if (!l || !r)
        return false;
    compareTexts(pickerLabel(*l), codeOf(leftId), pickerLabel(*r), codeOf(rightId), true);
    m_leftId = leftId;
    m_rightId = rightId;
    m_fillingPickers = true;
    m_leftPicker->setCurrentIndex(std::max(0, m_leftPicker->findData(leftId)));
    m_rightPicker->setCurrentIndex(std::max(0, m_rightPicker->findData(rightId)));
    m_fillingPickers = false;
    emit diffShown(leftId, rightId);
    return true;
}

QPair<QString, QString> DiffView::quickPickIds(QuickPick pick) const
{
    const Candidate *cur = m_run.candidate(m_currentId);
    if (!cur)
        return {};
    if (pick == QuickPick::ParentToChild)
        return m_run.candidate(cur->parentId) ? qMakePair(cur->parentId, cur->id) : QPair<QString, QString>();

    // The lineage: the current candidate's ancestors (root first), then its root's whole subtree
    // in creation order, so a seed finds the repair and algo-opt that grew from it.
    QList<const Candidate *> chain;
    for (const Candidate *c = cur; c; c = m_run.candidate(c->parentId)) {
        if (chain.contains(c))
            break; // a cycle in a damaged run
        chain.prepend(c);
    }
    const Candidate *root = chain.first();
    QSet<QString> subtree{root->id};
    QList<const Candidate *> below;
    for (const Candidate &c : m_run.candidates) { // parents are created before children
        if (subtree.contains(c.parentId)) {
            subtree.insert(c.id);
            below.append(&c);
        }
    }
    const Candidate *seed = root->kind == CandidateKind::Seed ? root : nullptr;
    const Candidate *algo = nullptr;
    for (const Candidate *c : chain)
        if (!algo && c->kind == CandidateKind::AlgoOpt)
            algo = c;
    for (const Candidate *c : below)
        if (!algo && c->kind == CandidateKind::AlgoOpt)
            algo = c;
    const Candidate *repair = nullptr;
    if (algo) { // the repair the algo-opt grew from
        for (const Candidate *c = m_run.candidate(algo->parentId); c && !repair; c = m_run.candidate(c->parentId))
            if (c->kind == CandidateKind::Repair)
                repair = c;
    }
    if (!repair)
        for (const Candidate *c : chain)
            if (c->kind == CandidateKind::Repair)
                repair = c;
    if (!repair)
        for (const Candidate *c : below)
            if (c->kind == CandidateKind::Repair)
                repair = c;
    auto ids = [](const Candidate *a, const Candidate *b) {
        return a && b ? qMakePair(a->id, b->id) : QPair<QString, QString>();
    };
    switch (pick) {
    case QuickPick::SeedToRepair: return ids(seed, repair);
    case QuickPick::RepairToAlgoOpt: return ids(repair, algo);
    case QuickPick::SeedToAlgoOpt: return ids(seed, algo);
    case QuickPick::ParentToChild: break;
    }
    return {};
}

bool DiffView::applyQuickPick(QuickPick pick)
{
    const auto [l, r] = quickPickIds(pick);
    return !l.isEmpty() && compareCandidates(l, r);
}

void DiffView::compareTexts(const QString &leftTitle, const QString &left, const QString &rightTitle,
                            const QString &right, bool highlightPython)
{
    m_leftId.clear();
    m_rightId.clear();
    m_leftName = leftTitle;
    m_rightName = rightTitle;
    m_leftText = left;
    m_rightText = right;
    if (highlightPython != m_python) {
        m_python = highlightPython;
        const QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        for (QsciScintilla *e : {m_left, m_right, m_inline})
            setLexer(e, m_python, font);
        applyColours();
    }
    m_fillingPickers = true;
    m_leftPicker->setCurrentIndex(0);
    m_rightPicker->setCurrentIndex(0);
    m_fillingPickers = false;
    m_result = diff::diffTexts(left, right, m_options);
    populate();
    emit diffShown(QString(), QString());
}

QString DiffView::promptText(const LlmExchange &x)
{
    QString s;
    for (const ChatMessage &m : x.messages)
        s += QStringLiteral("### %1\n%2\n\n").arg(m.role, m.content);
    return s;
}

void DiffView::compareExchanges(const LlmExchange &left, const LlmExchange &right)
{
    auto title = [](const LlmExchange &x) { return QStringLiteral("%1  %2  %3").arg(x.id, x.callType, x.model); };
    compareTexts(title(left), promptText(left), title(right), promptText(right), false);
}

void DiffView::setIntraLineGranularity(diff::Granularity g)
{
    m_options.intraLine = g;
    m_result = diff::diffTexts(m_leftText, m_rightText, m_options);
    populate();
}

void DiffView::setMode(Mode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    m_stack->setCurrentIndex(mode == Mode::SideBySide ? 0 : 1);
    m_modeButton->setText(mode == Mode::SideBySide ? tr("Inline") : tr("Split"));
    populate();
}

void DiffView::populate()
{
    m_leftTitle->setText(m_leftName);
    m_rightTitle->setText(m_rightName);
    m_leftTitle->setToolTip(m_leftName);
    m_rightTitle->setToolTip(m_rightName);
    // Only the visible mode is filled: switching mode refills, which keeps a switch of candidates
    // at one editor pair's worth of work.
    if (m_mode == Mode::SideBySide)
        populateSideBySide();
    else
        populateInline();
    m_current = -1;
    if (!m_result.hunks.isEmpty())
        goToChange(0);
    else
        emit changeNavigated(-1, 0);
    updateSummary();
}

void DiffView::populateSideBySide()
{
    const diff::DiffResult &d = m_result;
    QStringList left, right;
    left.reserve(d.pairs.size());
    right.reserve(d.pairs.size());
    for (const diff::LinePair &p : d.pairs) {
        left.append(p.leftLine ? d.leftLines.at(p.leftLine - 1) : QString());
        right.append(p.rightLine ? d.rightLines.at(p.rightLine - 1) : QString());
    }
    setEditorText(m_left, left.join(u'\n'));
    setEditorText(m_right, right.join(u'\n'));
    const int numberStyle = QsciScintillaBase::STYLE_LINENUMBER;
    for (int row = 0; row < d.pairs.size(); ++row) {
        const diff::LinePair &p = d.pairs.at(row);
        if (p.leftLine)
            m_left->setMarginText(row, QString::number(p.leftLine), numberStyle);
        if (p.rightLine)
            m_right->setMarginText(row, QString::number(p.rightLine), numberStyle);
        switch (p.kind) {
        case diff::LineKind::Equal: break;
        case diff::LineKind::Insert:
            m_left->markerAdd(row, Filler);
            m_right->markerAdd(row, Added);
            break;
        case diff::LineKind::Delete:
            m_left->markerAdd(row, Removed);
            m_right->markerAdd(row, Filler);
            break;
        case diff::LineKind::Change:
            m_left->markerAdd(row, ChangedLeft);
            m_right->markerAdd(row, ChangedRight);
            markRanges(m_left, row, left.at(row), p.leftRanges);
            markRanges(m_right, row, right.at(row), p.rightRanges);
            break;
        }
    }
}

void DiffView::populateInline()
{
    const diff::DiffResult &d = m_result;
    QStringList rows;
    rows.reserve(d.pairs.size() + d.changed);
    m_inlineRows.clear();
    struct RowMark {
        int marker;
        QString numbers;
        const QList<diff::Range> *ranges;
    };
    QList<RowMark> marks;
    auto number = [](int n) { return n ? QString::number(n).rightJustified(5) : QString(5, u' '); };
    for (const diff::LinePair &p : d.pairs) {
        m_inlineRows.append(static_cast<int>(rows.size()));
        if (p.kind == diff::LineKind::Equal) {
            rows.append(d.leftLines.at(p.leftLine - 1));
            marks.append({0, number(p.leftLine) + u' ' + number(p.rightLine), nullptr});
            continue;
        }
        if (p.leftLine) {
            rows.append(d.leftLines.at(p.leftLine - 1));
            marks.append({Removed, number(p.leftLine) + u' ' + number(0), &p.leftRanges});
        }
        if (p.rightLine) {
            rows.append(d.rightLines.at(p.rightLine - 1));
            marks.append({Added, number(0) + u' ' + number(p.rightLine), &p.rightRanges});
        }
    }
    setEditorText(m_inline, rows.join(u'\n'));
    for (int row = 0; row < rows.size(); ++row) {
        const RowMark &m = marks.at(row);
        m_inline->setMarginText(row, m.numbers, QsciScintillaBase::STYLE_LINENUMBER);
        if (m.marker)
            m_inline->markerAdd(row, m.marker);
        if (m.ranges)
            markRanges(m_inline, row, rows.at(row), *m.ranges);
    }
}

int DiffView::hunkRow(int hunk) const
{
    if (hunk < 0 || hunk >= m_result.hunks.size())
        return -1;
    const int pair = m_result.hunks.at(hunk).firstPair;
    return m_mode == Mode::SideBySide ? pair : m_inlineRows.value(pair, -1);
}

void DiffView::goToChange(int index)
{
    m_current = index;
    const int row = hunkRow(index);
    const QList<QsciScintilla *> editors = m_mode == Mode::SideBySide ? QList<QsciScintilla *>{m_left, m_right}
                                                                      : QList<QsciScintilla *>{m_inline};
    m_syncing = true; // both editors are placed here; their notifications must not fight
    for (QsciScintilla *e : editors) {
        e->markerDeleteAll(Current);
        e->markerAdd(row, Current);
        e->setCursorPosition(row, 0);
        // A few rows of context above the hunk, as a person scrolls to it.
        e->setFirstVisibleLine(std::max(0, row - 3));
        e->SendScintilla(QsciScintillaBase::SCI_SETXOFFSET, 0L);
    }
    m_syncedTop = std::max(0, row - 3);
    m_syncedX = 0;
    m_syncing = false;
    updateSummary();
    emit changeNavigated(m_current, changeCount());
}

bool DiffView::nextChange()
{
    if (m_current + 1 >= changeCount())
        return false;
    goToChange(m_current + 1);
    return true;
}

bool DiffView::previousChange()
{
    if (m_current <= 0)
        return false;
    goToChange(m_current - 1);
    return true;
}

void DiffView::updateSummary()
{
    const diff::DiffResult &d = m_result;
    if (d.identical()) {
        m_summary->setText(d.leftLines.isEmpty() && d.rightLines.isEmpty() ? QString() : tr("identical"));
        return;
    }
    m_summary->setText(tr("+%1 −%2 ~%3 · change %4/%5")
                           .arg(d.inserted)
                           .arg(d.deleted)
                           .arg(d.changed)
                           .arg(m_current + 1)
                           .arg(d.hunks.size()));
}

void DiffView::setDark(bool dark)
{
    m_dark = dark;
    applyColours();
}

void DiffView::applyColours()
{
    const QColor paper = m_dark ? QColor(0x1e, 0x1f, 0x22) : QColor(Qt::white);
    const QColor ink = m_dark ? QColor(0xdc, 0xdc, 0xdc) : QColor(Qt::black);
    const QColor removed = m_dark ? QColor(0x4b, 0x25, 0x28) : QColor(0xff, 0xdc, 0xe0);
    const QColor added = m_dark ? QColor(0x1f, 0x40, 0x2a) : QColor(0xd8, 0xf5, 0xdd);
    const QColor filler = m_dark ? QColor(0x2a, 0x2a, 0x2e) : QColor(0xee, 0xee, 0xee);
    const QColor box = m_dark ? QColor(0xd0, 0x9a, 0x30) : QColor(0xe0, 0x8a, 0x00);
    const QColor margin = m_dark ? QColor(0x2b, 0x2d, 0x30) : QColor(0xf0, 0xf0, 0xf0);
    for (QsciScintilla *e : {m_left, m_right, m_inline}) {
        e->setMarkerBackgroundColor(removed, Removed);
        e->setMarkerBackgroundColor(added, Added);
        e->setMarkerBackgroundColor(removed, ChangedLeft);
        e->setMarkerBackgroundColor(added, ChangedRight);
        e->setMarkerBackgroundColor(filler, Filler);
        e->setMarkerBackgroundColor(box, Current);
        e->setIndicatorForegroundColor(box, kIndicator);
        e->setMarginsBackgroundColor(margin);
        e->setMarginsForegroundColor(m_dark ? QColor(0x90, 0x90, 0x90) : QColor(0x70, 0x70, 0x70));
        e->setPaper(paper);
        e->setColor(ink);
        if (QsciLexer *lexer = e->lexer()) {
            lexer->setDefaultPaper(paper);
            lexer->setPaper(paper, -1);
            if (m_dark)
                lexer->setColor(ink, -1);
            else
                for (int s = 0; s < 128; ++s)
                    lexer->setColor(lexer->defaultColor(s), s);
        }
    }
}

} // namespace kwb
