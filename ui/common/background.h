#pragma once

#include "core/util/error.h"

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <type_traits>
#include <utility>

namespace rw {

// Runs `work` on the global thread pool and hands its Result to `done` on
// the thread of `context` (the GUI thread for widgets), always through the
// event loop, unless `context` has been destroyed by then.
//
// Contract: `work` must capture its inputs by value (a rw::Database copy is
// cheap and opens its own connection on the worker thread) and must not touch
// widgets or models. Exceptions never cross the thread boundary: anything
// thrown inside `work` becomes an Internal error. Callers tag each request
// with a generation and ignore answers to superseded requests.
template <typename Work, typename Done>
void runInBackground(QObject *context, Work work, Done done)
{
    using R = std::invoke_result_t<Work>;
    // A QFutureWatcher rather than QFuture::then(context): on Qt 6.4 a
    // continuation attached after the task already finished runs inline,
    // and one attached while it finishes can be lost.
    auto *watcher = new QFutureWatcher<R>(context);
    QObject::connect(watcher, &QFutureWatcher<R>::finished, context, [watcher, done = std::move(done)]() mutable {
        watcher->deleteLater();
        done(watcher->future().takeResult());
    });
    watcher->setFuture(QtConcurrent::run([work = std::move(work)]() -> R {
        try {
            return work();
        } catch (const std::exception &e) {
            return R(std::unexpect, Error::internal(QStringLiteral("unexpected failure: %1").arg(QString::fromLocal8Bit(e.what()))));
        } catch (...) {
            return R(std::unexpect, Error::internal(QStringLiteral("unexpected failure in a background task")));
        }
    }));
}

} // namespace rw
