// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace kwb::llm {

/// One server-sent event.
struct SseEvent {
    QString event; ///< the "event:" field; empty for unnamed events
    QString data; ///< "data:" lines joined with '\n'
};

/// Incremental server-sent-events decoder. Bytes may arrive split anywhere (mid-line, mid-UTF-8
/// character, between '\r' and '\n'): text is decoded only once a whole line is buffered.
class SseDecoder
{
public:
    /// Feeds bytes; returns the events completed by them.
    QList<SseEvent> feed(const QByteArray &bytes);
    /// The end of the stream: completes a last event not followed by a blank line; a last line
    /// without its line break is incomplete and dropped.
    QList<SseEvent> finish();
    /// Bytes seen that were not part of any event line so far (for error messages).
    bool sawAnyLine() const { return m_sawLine; }

private:
    void takeLine(const QByteArray &line, QList<SseEvent> &out);
    QByteArray m_buffer;
    SseEvent m_current;
    bool m_hasData = false;
    bool m_pendingCr = false; ///< the last byte was '\r': a following '\n' belongs to it
    bool m_sawLine = false;
};

} // namespace kwb::llm
