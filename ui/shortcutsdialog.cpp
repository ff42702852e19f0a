// SPDX-License-Identifier: MIT
#include "shortcutsdialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kwb {

QList<QPair<QString, QString>> ShortcutsDialog::rows(const QList<QAction *> &actions)
{
    QList<QPair<QString, QString>> out;
    for (QAction *a : actions) {
        if (!a || a->shortcuts().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence &k : a->shortcuts())
            keys.append(k.toString(QKeySequence::NativeText));
        QString text = a->text();
        text.remove(QLatin1Char('&'));
        if (text.endsWith(QStringLiteral("…")))
            text.chop(1);
        out.append({text, keys.join(QStringLiteral(", "))});
    }
    return out;
}

ShortcutsDialog::ShortcutsDialog(const QList<QAction *> &actions, QWidget *parent)
    : QDialog(parent)
    , m_table(new QTableWidget(this))
{
    setWindowTitle(tr("Keyboard shortcuts"));
    const auto list = rows(actions);
    m_table->setColumnCount(2);
    m_table->setRowCount(int(list.size()));
    m_table->setHorizontalHeaderLabels({tr("Action"), tr("Shortcut")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    for (int i = 0; i < list.size(); ++i) {
        m_table->setItem(i, 0, new QTableWidgetItem(list[i].first));
        m_table->setItem(i, 1, new QTableWidgetItem(list[i].second));
    }
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
    resize(460, 420);
}

} // namespace kwb
