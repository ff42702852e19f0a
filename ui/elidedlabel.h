// SPDX-License-Identifier: MIT
#pragma once

#include <QLabel>

namespace kwb {

/// A one-line label that, when narrower than its text, ends the text with "…" instead of cutting
/// it mid-letter; the tooltip always carries the whole text.
class ElidedLabel : public QLabel
{
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget *parent = nullptr);
    void setFullText(const QString &text);
    QString fullText() const { return m_full; }
    /// True when the text does not fit and is shown shortened.
    bool isElided() const;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void updateShown();
    QString m_full;
};

} // namespace kwb
