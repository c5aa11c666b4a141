#pragma once

// What the gui_stall scenarios share: the clock, a 10 ms ticking timer that
// measures the GUI thread's stalls per named phase, and an application that
// names every event that held the GUI thread. Header-only; one process.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTextStream>
#include <QTimer>
#include <algorithm>
#include <ctime>
#include <map>
#include <vector>

namespace guibench {

constexpr int kTickMs = 10;
constexpr qint64 kStallMs = 50;

inline QTextStream &out() {
    static QTextStream s(stdout);
    return s;
}

// "VmHWM" (peak) or "VmRSS" (now) of this process, in MB.
inline double memoryMb(const char *field) {
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray key = QByteArray(field) + ':';
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith(key))
            return line.mid(key.size()).trimmed().split(' ').value(0).toDouble() / 1024.0;
    return -1;
}

// One clock for the phases and the slow events, so their times line up.
inline const QElapsedTimer &benchClock() {
    static const QElapsedTimer c = [] {
        QElapsedTimer t;
        t.start();
        return t;
    }();
    return c;
}

// Gaps between ticks of a 10 ms timer on the GUI thread, per named phase.
class StallMeter : public QObject {
public:
    struct Phase {
        qint64 ticks = 0;
        qint64 longestMs = 0;
        qint64 longestAtMs = 0; // since the phase began
        qint64 over50 = 0;
        qint64 startedMs = 0;
        qint64 endedMs = -1;
        std::vector<qint64> gaps;
    };

    StallMeter() {
        m_last = benchClock().elapsed();
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(kTickMs);
        QObject::connect(&m_timer, &QTimer::timeout, this, [this] { tick(); });
        m_timer.start();
    }

    void begin(const QString &phase) {
        end();
        m_current = phase;
        m_order.push_back(phase);
        m_phases[phase].startedMs = benchClock().elapsed();
    }
    void end() {
        if (!m_current.isEmpty())
            m_phases[m_current].endedMs = benchClock().elapsed();
        m_current.clear();
    }
    qint64 elapsedMs() const { return benchClock().elapsed(); }

    void report() const {
        out() << QStringLiteral("event loop (a %1 ms timer on the GUI thread):\n").arg(kTickMs);
        for (const QString &name : m_order) {
            const Phase &p = m_phases.at(name);
            std::vector<qint64> gaps = p.gaps;
            std::sort(gaps.begin(), gaps.end());
            const qint64 p99 =
                gaps.empty() ? 0 : gaps[std::min(gaps.size() - 1, gaps.size() * 99 / 100)];
            out() << QStringLiteral("  %1: %2 s, %3 ticks, longest gap %4 ms (at +%5 s, t=%9 s), "
                                    "p99 gap %6 ms, gaps over %7 ms: %8\n")
                         .arg(name, -14)
                         .arg((p.endedMs - p.startedMs) / 1000.0, 0, 'f', 2)
                         .arg(p.ticks)
                         .arg(p.longestMs)
                         .arg(p.longestAtMs / 1000.0, 0, 'f', 2)
                         .arg(p99)
                         .arg(kStallMs)
                         .arg(p.over50)
                         .arg((p.startedMs + p.longestAtMs) / 1000.0, 0, 'f', 2);
        }
    }
    // A phase's figures; nullptr for one that never began.
    const Phase *phase(const QString &name) const {
        const auto it = m_phases.find(name);
        return it == m_phases.end() ? nullptr : &it->second;
    }
    qint64 longest(const QString &phase) const {
        const auto it = m_phases.find(phase);
        return it == m_phases.end() ? 0 : it->second.longestMs;
    }

private:
    void tick() {
        const qint64 now = benchClock().elapsed();
        const qint64 gap = now - m_last;
        m_last = now;
        if (m_current.isEmpty())
            return;
        Phase &p = m_phases[m_current];
        ++p.ticks;
        p.gaps.push_back(gap);
        if (gap > p.longestMs) {
            p.longestMs = gap;
            p.longestAtMs = now - p.startedMs;
        }
        if (gap > kStallMs)
            ++p.over50;
    }

    QTimer m_timer;
    qint64 m_last;
    QString m_current;
    std::vector<QString> m_order;
    std::map<QString, Phase> m_phases;
};

inline int failed(const QString &message) {
    QTextStream(stderr) << "gui_stall: " << message << '\n';
    QApplication::exit(1);
    return 1;
}

inline QString verdict(bool met) {
    return met ? QStringLiteral("met") : QStringLiteral("MISSED");
}

// Names what held the GUI thread: every event whose delivery (outermost
// notify, nested ones included in it) took longer than kSlowEventMs, with
// its receiver and event type, so a stall can be traced to its page or model.
constexpr qint64 kSlowEventMs = 15;

class TimedApplication : public QApplication {
public:
    using QApplication::QApplication;
    bool notify(QObject *receiver, QEvent *event) override {
        if (m_depth > 0) {
            ++m_depth;
            const bool handled = QApplication::notify(receiver, event);
            --m_depth;
            return handled;
        }
        // Read before delivery: the receiver or the event may be gone after it.
        const QString what =
            QString::fromLatin1(receiver->metaObject()->className()) +
            (receiver->objectName().isEmpty()
                 ? QString()
                 : QStringLiteral(" \"") + receiver->objectName() + u'"') +
            (receiver->parent()
                 ? QStringLiteral(" in ") +
                       QString::fromLatin1(receiver->parent()->metaObject()->className())
                 : QString());
        const int type = int(event->type());
        QElapsedTimer t;
        t.start();
        const qint64 cpuBefore = threadCpuMs();
        ++m_depth;
        const bool handled = QApplication::notify(receiver, event);
        --m_depth;
        if (const qint64 ms = t.elapsed(); ms > kSlowEventMs)
            m_slow.push_back(
                {benchClock().elapsed() - ms, ms, threadCpuMs() - cpuBefore, what, type});
        return handled;
    }
    void report() const {
        out() << QStringLiteral("events that held the GUI thread over %1 ms (start, duration, of "
                                "which the GUI thread ran on a CPU, "
                                "receiver, QEvent type; the rest it waited: for a lock, or for a "
                                "core the workers held):\n")
                     .arg(kSlowEventMs);
        if (m_slow.empty())
            out() << QStringLiteral("  none\n");
        for (const Slow &s : m_slow)
            out() << QStringLiteral("  t=%1 s  %2 ms (cpu %3 ms)  %4  type %5\n")
                         .arg(s.atMs / 1000.0, 0, 'f', 2)
                         .arg(s.ms)
                         .arg(s.cpuMs)
                         .arg(s.receiver)
                         .arg(s.type);
    }

private:
    static qint64 threadCpuMs() {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return qint64(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
    }
    struct Slow {
        qint64 atMs, ms, cpuMs;
        QString receiver;
        int type;
    };
    int m_depth = 0;
    std::vector<Slow> m_slow;
};

} // namespace guibench
