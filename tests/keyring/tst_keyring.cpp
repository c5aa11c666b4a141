// The desktop keyring (run by with-keyring.sh inside a D-Bus session with
// GNOME Keyring's Secret Service): a password written is read back and is
// in the Secret Service (secret-tool, an independent client, finds it under
// QtKeychain's attributes), removed is gone; and the console, told to
// remember a password it asked for, opens the workspace next time from the
// keyring without asking. Skipped, saying why, where there is no keyring.
#include "core/sql/credentials.h"
#include "tests/gui/guitest.h"
#include "tests/testsupport.h"
#include "ui/common/errorbanner.h"
#include "ui/common/keyring.h"
#include "ui/window/mainwindow.h"
#include "ui/window/passworddialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>
#include <QUuid>

using rw::MainWindow;

namespace {

constexpr int kTimeoutMs = 60000;

template <typename T> std::optional<T> await(std::function<void(std::function<void(T)>)> start) {
    std::optional<T> out;
    start([&out](T value) { out = std::move(value); });
    if (!QTest::qWaitFor([&] { return out.has_value(); }, kTimeoutMs))
        qWarning("the keyring did not answer in time");
    return out;
}

std::optional<rw::Result<QString>> readKey(const QString &login, QObject *context) {
    return await<rw::Result<QString>>([&](auto done) { rw::keyring::read(login, context, done); });
}
std::optional<rw::Status> writeKey(const QString &login, const QString &password,
                                   QObject *context) {
    return await<rw::Status>(
        [&](auto done) { rw::keyring::write(login, password, context, done); });
}
std::optional<rw::Status> removeKey(const QString &login, QObject *context) {
    return await<rw::Status>([&](auto done) { rw::keyring::remove(login, context, done); });
}

// What secret-tool (libsecret's command line) finds under QtKeychain's
// attributes for `login`, or nullopt when there is no secret-tool.
std::optional<QString> secretTool(const QString &login) {
    const QString tool = QStandardPaths::findExecutable(QStringLiteral("secret-tool"));
    if (tool.isEmpty())
        return std::nullopt;
    QProcess p;
    p.start(tool, {QStringLiteral("lookup"), QStringLiteral("server"),
                   QLatin1String(rw::keyring::kService), QStringLiteral("user"), login});
    p.waitForFinished(kTimeoutMs);
    return QString::fromUtf8(p.readAllStandardOutput());
}

} // namespace

class TestKeyring : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        if (const QString why = qEnvironmentVariable("REWIND_KEYRING_SKIP"); !why.isEmpty())
            QSKIP(qPrintable(why));
        guitest::useTestSettings(QStringLiteral("tst_keyring"), true);
        // A keyring that does not answer is a skip with its reason, not a pass.
        QObject context;
        const auto probe = writeKey(QStringLiteral("rewind-probe"), QStringLiteral("x"), &context);
        if (!probe || !*probe)
            QSKIP(qPrintable(
                QStringLiteral("no desktop keyring answers: %1")
                    .arg(probe ? probe->error().message : QStringLiteral("no answer in time"))));
        removeKey(QStringLiteral("rewind-probe"), &context);
    }

    void roundTrip() {
        QObject context;
        const QString login =
            QStringLiteral("postgresql://op@db.example:5432/w-") + QUuid::createUuid().toString();
        const QString password = QStringLiteral("s3cret \u00e9 ") + QUuid::createUuid().toString();
        const auto none = readKey(login, &context);
        QVERIFY(none && *none);
        QVERIFY(none->value().isEmpty());
        const auto written = writeKey(login, password, &context);
        QVERIFY2(written && *written,
                 qPrintable(written ? written->error().message : QStringLiteral("timeout")));
        const auto back = readKey(login, &context);
        QVERIFY(back && *back);
        QCOMPARE(back->value(), password);
        if (const auto found = secretTool(login))
            QCOMPARE(*found, password);
        const auto removed = removeKey(login, &context);
        QVERIFY(removed && *removed);
        const auto gone = readKey(login, &context);
        QVERIFY(gone && *gone);
        QVERIFY(gone->value().isEmpty());
    }

    // Asked once, remembered, then opened from the keyring with no prompt. A
    // wrong password typed first with Remember ticked is never kept.
    void consoleRemembersInTheKeyring() {
        if (!testsupport::onPostgres() || !testsupport::engineUnavailable().isEmpty())
            QSKIP("needs the PostgreSQL test server (REWIND_TEST_ENGINE=postgres)");
        const auto login = testsupport::newPasswordRole(QStringLiteral("keyring"));
        QVERIFY(!login.password.isEmpty());
        QTemporaryDir dir;
        const QString serverDb =
            testsupport::makeDatabase(dir, QStringLiteral("keyring.db"),
                                      {QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, "
                                                      "dt TEXT)")})
                .url()
                .text;
        const QString spec = testsupport::writeFile(dir, QStringLiteral("k.json"), R"({"datasets": {
          "sales": {"source": "raw_sales", "target": "fact_sales", "partition_column": "dt",
                    "key": ["order_id"], "write": "merge"}}})");
        const QString db = login.url(serverDb);
        {
            MainWindow w;
            w.show();
            QSignalSpy opened(&w, &MainWindow::workspaceOpened);
            w.openWorkspace(db, spec);
            rw::PasswordDialog *dialog = nullptr;
            QTRY_VERIFY_WITH_TIMEOUT(
                (dialog = w.findChild<rw::PasswordDialog *>()) && dialog->isVisible(), kTimeoutMs);
            dialog->passwordEdit()->setText(login.password);
            dialog->rememberBox()->setChecked(true);
            dialog->accept();
            QVERIFY(opened.wait(kTimeoutMs));
            // Kept once the server took it: the keyring has it soon after.
            QObject context;
            const QString key = rw::credentials::loginOf(*rw::DatabaseUrl::parse(db));
            QVERIFY(QTest::qWaitFor(
                [&] {
                    const auto stored = readKey(key, &context);
                    return stored && *stored && stored->value() == login.password;
                },
                kTimeoutMs));
            QVERIFY(!w.banner()->isVisible() ||
                    !w.banner()->message().contains(QStringLiteral("session only")));
        }
        rw::credentials::forget(*rw::DatabaseUrl::parse(db)); // a new session
        if (const auto found = secretTool(db))
            QCOMPARE(*found, login.password);
        {
            MainWindow w;
            w.show();
            QSignalSpy opened(&w, &MainWindow::workspaceOpened);
            bool asked = false;
            QTimer poll;
            connect(&poll, &QTimer::timeout, &w,
                    [&] { asked = asked || w.findChild<rw::PasswordDialog *>() != nullptr; });
            poll.start(10);
            w.openWorkspace(db, spec);
            QVERIFY(opened.wait(kTimeoutMs));
            QVERIFY2(!asked, "the password was asked for again");
        }
        QObject context;
        QVERIFY(removeKey(rw::credentials::loginOf(*rw::DatabaseUrl::parse(db)), &context));
        rw::credentials::forget(*rw::DatabaseUrl::parse(db));
    }
};

QTEST_MAIN(TestKeyring)
#include "tst_keyring.moc"
