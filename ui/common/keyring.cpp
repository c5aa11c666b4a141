#include "ui/common/keyring.h"

#include <qt6keychain/keychain.h>

namespace rw::keyring {

namespace {

QString failure(const QKeychain::Job &job) {
    return QObject::tr("the desktop keyring: %1").arg(job.errorString());
}

template <typename J> J *makeJob(const QString &login) {
    auto *job = new J(QLatin1String(kService));
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(login);
    return job;
}

} // namespace

void read(const QString &login, QObject *context, std::function<void(Result<QString>)> done) {
    auto *job = makeJob<QKeychain::ReadPasswordJob>(login);
    QObject::connect(job, &QKeychain::Job::finished, context,
                     [done = std::move(done)](QKeychain::Job *j) {
                         auto *r = static_cast<QKeychain::ReadPasswordJob *>(j);
                         if (r->error() == QKeychain::NoError)
                             done(r->textData());
                         else if (r->error() == QKeychain::EntryNotFound)
                             done(QString());
                         else
                             done(internalError(failure(*r)));
                     });
    job->start();
}

void write(const QString &login, const QString &password, QObject *context,
           std::function<void(Status)> done) {
    auto *job = makeJob<QKeychain::WritePasswordJob>(login);
    job->setTextData(password);
    QObject::connect(job, &QKeychain::Job::finished, context,
                     [done = std::move(done)](QKeychain::Job *j) {
                         if (j->error() == QKeychain::NoError)
                             done({});
                         else
                             done(internalError(failure(*j)));
                     });
    job->start();
}

void remove(const QString &login, QObject *context, std::function<void(Status)> done) {
    auto *job = makeJob<QKeychain::DeletePasswordJob>(login);
    QObject::connect(
        job, &QKeychain::Job::finished, context, [done = std::move(done)](QKeychain::Job *j) {
            if (j->error() == QKeychain::NoError || j->error() == QKeychain::EntryNotFound)
                done({});
            else
                done(internalError(failure(*j)));
        });
    job->start();
}

} // namespace rw::keyring
