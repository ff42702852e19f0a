// SPDX-License-Identifier: MIT
// The SSE decoder at every split point of a stream (mid-line, mid-UTF-8, between CR and LF).
#include "llm/ssedecoder.h"

#include <QTest>

using namespace kwb::llm;

class TstSseDecoder : public QObject
{
    Q_OBJECT

    static QList<SseEvent> decode(const QList<QByteArray> &pieces, SseDecoder &d)
    {
        QList<SseEvent> all;
        for (const auto &p : pieces)
            all += d.feed(p);
        all += d.finish();
        return all;
    }

private Q_SLOTS:
    void everySplitPoint_data()
    {
        QTest::addColumn<QByteArray>("stream");
        QTest::newRow("LF") << QByteArray("data: {\"t\":\"h\xC3\xA9llo \xF0\x9F\x9A\x80\"}\n\n: keep-alive\n\nevent: x\ndata: a\ndata: b\n\n");
        QTest::newRow("CRLF") << QByteArray("data: {\"t\":\"h\xC3\xA9llo \xF0\x9F\x9A\x80\"}\r\n\r\n: keep-alive\r\n\r\nevent: x\r\ndata: a\r\ndata: b\r\n\r\n");
        QTest::newRow("CR") << QByteArray("data: {\"t\":\"h\xC3\xA9llo \xF0\x9F\x9A\x80\"}\r\r: keep-alive\r\revent: x\rdata: a\rdata: b\r\r");
    }
    void everySplitPoint()
    {
        QFETCH(QByteArray, stream);
        for (int a = 0; a <= stream.size(); ++a) {
            for (int b = a; b <= stream.size(); b += 3) {
                SseDecoder d;
                const auto events = decode({stream.left(a), stream.mid(a, b - a), stream.mid(b)}, d);
                QCOMPARE(events.size(), 2);
                QCOMPARE(events.at(0).data, QString::fromUtf8("{\"t\":\"h\xC3\xA9llo \xF0\x9F\x9A\x80\"}"));
                QCOMPARE(events.at(1).event, QStringLiteral("x"));
                QCOMPARE(events.at(1).data, QStringLiteral("a\nb"));
            }
        }
    }

    void byteByByte()
    {
        const QByteArray s("data: \xE6\x97\xA5\xE6\x9C\xAC\r\n\r\n");
        SseDecoder d;
        QList<QByteArray> pieces;
        for (char c : s)
            pieces << QByteArray(1, c);
        const auto events = decode(pieces, d);
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().data, QString::fromUtf8("\xE6\x97\xA5\xE6\x9C\xAC"));
    }

    void truncatedLineIsDropped()
    {
        SseDecoder d;
        QVERIFY(d.feed("data: {\"a\":1}\n\ndata: {\"b\":").size() == 1);
        QVERIFY(d.finish().isEmpty()); // the cut-off event never reaches the parser
        SseDecoder e;
        QVERIFY(e.feed("data: [DONE]\n").isEmpty());
        QCOMPARE(e.finish().size(), 1); // a complete last line without its blank line still counts
    }
};

QTEST_GUILESS_MAIN(TstSseDecoder)
#include "tst_ssedecoder.moc"
