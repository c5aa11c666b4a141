// No stored secret: the console opened with a password in its --db URL uses
// it and keeps it nowhere (its settings, title, status bar, widgets,
// screenshot, the files under its home); a workspace whose server wants a
// password none of libpq's sources gives is opened after the console asks
// for it (again when the server refuses it); with prompts off (--screenshot)
// the open fails naming the role. PostgreSQL only: the console's home is a
// temporary directory of this test's own, the desktop keyring unreachable.
#include "core/sql/credentials.h"
#include "tests/gui/guitest.h"
#include "tests/testsupport.h"
#include "ui/common/errorbanner.h"
#include "ui/common/page.h"
#include "ui/common/settings.h"
#include "ui/window/mainwindow.h"
#include "ui/window/passworddialog.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QDirIterator>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>
#include <QUrl>

using rw::MainWindow;

namespace {

constexpr int kTimeoutMs = 60000;

// Every text a person can see or hover in `w`.
QStringList visibleTexts(const QWidget &w) {
    QStringList out{w.windowTitle()};
    for (const QWidget *child : w.findChildren<QWidget *>()) {
        out << child->toolTip() << child->windowTitle();
        if (const auto *label = qobject_cast<const QLabel *>(child))
            out << label->text();
        else if (const auto *edit = qobject_cast<const QLineEdit *>(child))
            out << edit->text();
        else if (const auto *button = qobject_cast<const QAbstractButton *>(child))
            out << button->text();
    }
    return out;
}

// Files under `root` whose bytes hold `secret` (as typed or percent-encoded).
QStringList filesHolding(const QString &root, const QString &secret) {
    QStringList out;
    const QByteArray plain = secret.toUtf8();
    const QByteArray encoded = QUrl::toPercentEncoding(secret);
    QDirIterator it(root, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QByteArray bytes = f.readAll();
        if (bytes.contains(plain) || bytes.contains(encoded))
            out << path;
    }
    return out;
}

const QByteArray kSpec = R"({"datasets": {
  "sales": {"source": "raw_sales", "target": "fact_sales", "partition_column": "dt",
            "key": ["order_id"], "write": "merge"}}})";

} // namespace

class TestSecrets : public QObject {
    Q_OBJECT

    QString m_home;
    QTemporaryDir m_dir;
    testsupport::PasswordRole m_login;
    QString m_serverDb; // the workspace's database, as postgres
    QString m_spec;

    // Waits for the PasswordDialog the window opens, gives it `password`.
    static bool answer(MainWindow &w, const QString &password, QString *reason = nullptr) {
        rw::PasswordDialog *dialog = nullptr;
        if (!QTest::qWaitFor(
                [&] {
                    dialog = w.findChild<rw::PasswordDialog *>();
                    return dialog && dialog->isVisible();
                },
                kTimeoutMs))
            return false;
        if (dialog->passwordEdit()->echoMode() != QLineEdit::Password)
            return false;
        if (reason)
            *reason = dialog->findChild<QLabel *>(QStringLiteral("passwordReason"))->text();
        // Saved for a person to look at when REWIND_TEST_SHOTS names a folder.
        if (const QString shots = qEnvironmentVariable("REWIND_TEST_SHOTS"); !shots.isEmpty())
            dialog->grab().save(QDir(shots).filePath(QStringLiteral("password-dialog.png")));
        dialog->passwordEdit()->setText(password);
        dialog->accept();
        QTest::qWait(0); // let WA_DeleteOnClose run
        return true;
    }

public:
    explicit TestSecrets(QString home)
        : m_home(std::move(home)) {}

private Q_SLOTS:
    void initTestCase() {
        if (!testsupport::onPostgres())
            QSKIP("passwords are PostgreSQL's; this suite runs as tst_secrets_pg");
        REWIND_REQUIRE_ENGINE();
        m_login = testsupport::newPasswordRole(QStringLiteral("secrets"));
        QVERIFY(!m_login.password.isEmpty());
        m_serverDb = testsupport::makeDatabase(
                         m_dir, QStringLiteral("secrets.db"),
                         {QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, dt TEXT, "
                                         "amount INTEGER)"),
                          QStringLiteral("INSERT INTO raw_sales VALUES (1, '2025-05-01', 5), (2, "
                                         "'2025-05-02', 7)")})
                         .url()
                         .text;
        m_spec = testsupport::writeFile(m_dir, QStringLiteral("secrets.json"), kSpec);
    }
    void cleanup() { guitest::waitForBackgroundWork(); }

    void passwordInTheUrlIsKeptNowhere() {
        const QString withPassword = m_login.url(m_serverDb, m_login.password);
        {
            MainWindow w;
            w.resize(1200, 800);
            w.show();
            QSignalSpy opened(&w, &MainWindow::workspaceOpened);
            w.openWorkspace(withPassword, m_spec);
            QVERIFY(opened.wait(kTimeoutMs));
            QCOMPARE(w.workspaceDb(), m_login.url(m_serverDb));
            for (const QString &page :
                 {QStringLiteral("partitions"), QStringLiteral("runs"), QStringLiteral("audit")}) {
                QVERIFY(w.showNamedPage(page));
                QTRY_VERIFY_WITH_TIMEOUT(w.currentPage() && !w.currentPage()->isLoading(),
                                         kTimeoutMs);
                for (const QString &text : visibleTexts(w))
                    QVERIFY2(!text.contains(m_login.password), qPrintable(page + u": " + text));
            }
            QVERIFY(w.grab().save(QDir(m_home).filePath(QStringLiteral("shot.png")), "PNG"));
            w.close(); // saves the layout and last page, as the console does on exit
        }
        const auto recents = rw::Settings().recentWorkspaces();
        QVERIFY(!recents.empty());
        QCOMPARE(recents.front().db, m_login.url(m_serverDb));

        // The recent entry opens again in this session: the password is
        // remembered in memory for the login, not in the entry.
        {
            MainWindow again;
            QSignalSpy opened(&again, &MainWindow::workspaceOpened);
            again.openWorkspace(recents.front().db, recents.front().spec);
            QVERIFY(opened.wait(kTimeoutMs));
            QVERIFY(!again.findChild<rw::PasswordDialog *>());
        }
        QVERIFY(QFile::exists(QDir(m_home).filePath(QStringLiteral(".config/Rewind/rewind.conf"))));
        QCOMPARE(filesHolding(m_home, m_login.password), QStringList());
        QCOMPARE(filesHolding(m_dir.path(), m_login.password), QStringList());
        rw::credentials::forget(*rw::DatabaseUrl::parse(m_login.url(m_serverDb)));
    }

    // A settings file an older Rewind wrote with the password in it is
    // rewritten without it the first time it is read.
    void olderSettingsAreScrubbed() {
        {
            QSettings raw;
            raw.beginWriteArray(QStringLiteral("recent/workspaces"), 1);
            raw.setArrayIndex(0);
            raw.setValue(QStringLiteral("db"), m_login.url(m_serverDb, m_login.password));
            raw.setValue(QStringLiteral("spec"), m_spec);
            raw.endArray();
        }
        QCOMPARE(rw::Settings().recentWorkspaces().front().db, m_login.url(m_serverDb));
        QSettings().sync();
        QCOMPARE(filesHolding(m_home, m_login.password), QStringList());
    }

    void promptsWhenTheServerWantsOne() {
        const QString noPassword = m_login.url(m_serverDb);
        MainWindow w;
        w.show();
        QSignalSpy opened(&w, &MainWindow::workspaceOpened);
        QSignalSpy failed(&w, &MainWindow::workspaceFailed);
        w.openWorkspace(noPassword, m_spec);
        QString reason;
        QVERIFY(answer(w, QStringLiteral("not-the-password"), &reason));
        QVERIFY2(reason.contains(QStringLiteral("No password was found")), qPrintable(reason));
        QVERIFY(answer(w, m_login.password, &reason));
        QVERIFY2(reason.contains(QStringLiteral("refused that password")), qPrintable(reason));
        QVERIFY(opened.wait(kTimeoutMs));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(w.workspace()->spec.datasets.size(), std::size_t(1));
        for (const QString &text : visibleTexts(w))
            QVERIFY(!text.contains(m_login.password));
        rw::credentials::forget(*rw::DatabaseUrl::parse(noPassword));
    }

    void cancelledPromptFailsTheOpen() {
        const QString noPassword = m_login.url(m_serverDb);
        MainWindow w;
        w.show();
        QSignalSpy failed(&w, &MainWindow::workspaceFailed);
        w.openWorkspace(noPassword, m_spec);
        rw::PasswordDialog *dialog = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((dialog = w.findChild<rw::PasswordDialog *>()), kTimeoutMs);
        dialog->reject();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kTimeoutMs);
        QCOMPARE(failed.front().at(0).toInt(), 2);
        QVERIFY(failed.front().at(1).toString().contains(m_login.role));
    }

    void noPromptForAScreenshot() {
        MainWindow w;
        w.setPasswordPrompts(false);
        QSignalSpy failed(&w, &MainWindow::workspaceFailed);
        w.openWorkspace(m_login.url(m_serverDb), m_spec);
        QVERIFY(failed.wait(kTimeoutMs));
        QCOMPARE(failed.front().at(0).toInt(), 2);
        QVERIFY(failed.front().at(1).toString().contains(m_login.role));
        QVERIFY(!w.findChild<rw::PasswordDialog *>());
    }

    // "Remember" ticked where no keyring answers: the workspace opens, the
    // banner says the password lasts for this session only.
    void rememberWithoutAKeyring() {
        const QString noPassword = m_login.url(m_serverDb);
        MainWindow w;
        w.show();
        QSignalSpy opened(&w, &MainWindow::workspaceOpened);
        w.openWorkspace(noPassword, m_spec);
        rw::PasswordDialog *dialog = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT(
            (dialog = w.findChild<rw::PasswordDialog *>()) && dialog->isVisible(), kTimeoutMs);
        dialog->passwordEdit()->setText(m_login.password);
        dialog->rememberBox()->setChecked(true);
        dialog->accept();
        QVERIFY(opened.wait(kTimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(w.banner()->isVisible(), kTimeoutMs);
        QVERIFY(w.banner()->message().contains(QStringLiteral("this session only")));
        QCOMPARE(filesHolding(m_home, m_login.password), QStringList());
        rw::credentials::forget(*rw::DatabaseUrl::parse(noPassword));
    }
};

int main(int argc, char **argv) {
    // The console's home, settings and caches: a directory of the test's own,
    // searched afterwards. No Secret Service on the bus.
    QTemporaryDir home;
    const QString h = home.path();
    qputenv("HOME", h.toUtf8());
    for (const auto &[name, sub] :
         {std::pair{"XDG_CONFIG_HOME", ".config"}, std::pair{"XDG_DATA_HOME", ".local/share"},
          std::pair{"XDG_CACHE_HOME", ".cache"}, std::pair{"XDG_STATE_HOME", ".local/state"},
          std::pair{"XDG_RUNTIME_DIR", "run"}}) {
        QDir(h).mkpath(QLatin1String(sub));
        qputenv(name, QDir(h).filePath(QLatin1String(sub)).toUtf8());
    }
    QFile::setPermissions(QDir(h).filePath(QStringLiteral("run")),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/rewind-test-bus");
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("Rewind"));
    QCoreApplication::setApplicationName(QStringLiteral("rewind"));
    TestSecrets test(h);
    return QTest::qExec(&test, argc, argv);
}

#include "tst_secrets.moc"
