// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>

class QAction;
class QTableWidget;

namespace kwb {

/// Lists the keyboard shortcuts of a set of actions. Generated from the actions themselves, so
/// the list cannot drift from what the keys do.
class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    ShortcutsDialog(const QList<QAction *> &actions, QWidget *parent = nullptr);
    QTableWidget *table() const { return m_table; }

    /// (text without '&', shortcut in native text) for each action that has a shortcut.
    static QList<QPair<QString, QString>> rows(const QList<QAction *> &actions);

private:
    QTableWidget *m_table;
};

} // namespace kwb
