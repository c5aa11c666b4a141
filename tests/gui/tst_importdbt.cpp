// The console's dbt import (issue 44): File > Import dbt project... reads a
// manifest off the GUI thread and shows each node's mapping (left-out ones
// with the reason) before writing anything; Import writes the spec; the
// navigator shows a dataset's dbt origin, flagged once its model changed.
#include "tests/dbtmanifests.h"
#include "tests/gui/guitest.h"
#include "tests/testsupport.h"
#include "ui/window/importdbtdialog.h"
#include "ui/window/mainwindow.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTest>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

using rw::ImportDbtDialog;
using rw::MainWindow;

namespace {

constexpr int kTimeoutMs = 60000;

// Saved for a person to look at when REWIND_TEST_SHOTS names a folder.
void shoot(QWidget *w, const QString &name) {
    const QString dir = qEnvironmentVariable("REWIND_TEST_SHOTS");
    if (!dir.isEmpty())
        w->grab().save(dir + u'/' + name + QStringLiteral(".png"), "PNG");
}

QTreeWidgetItem *item(const MainWindow &w, const QString &name) {
    for (QTreeWidgetItemIterator it(w.navigator()->tree()); *it; ++it)
        if ((*it)->text(0) == name)
            return *it;
    return nullptr;
}

} // namespace

class TestImportDbt : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cleanup() { guitest::waitForBackgroundWork(); }

    void initTestCase() {
        guitest::useTestSettings(QStringLiteral("tst_importdbt"), true);
        REWIND_REQUIRE_ENGINE();
    }

    void importsAndShowsTheOrigin() {
        QTemporaryDir dir;
        rw::Database db = testsupport::makeDatabase(
            dir, QStringLiteral("w.db"),
            {QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, amount INTEGER)"),
             QStringLiteral("INSERT INTO raw_sales VALUES (1, 4), (2, 6), (3, 9)")});
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("shop/target")));
        const QString manifest = testsupport::writeFile(
            dir, QStringLiteral("shop/target/manifest.json"),
            dbtdata::driftManifest(QStringLiteral("s1"),
                                   QStringLiteral("select order_id, amount from raw_sales"), true));

        ImportDbtDialog dialog;
        dialog.show();
        QSignalSpy shown(&dialog, &ImportDbtDialog::mappingShown);
        dialog.setDatabase(db.url().text);
        dialog.setManifest(manifest);
        QVERIFY(shown.wait(kTimeoutMs));
        QCOMPARE(shown.takeFirst().at(0).toString(), QString());
        // The spec goes beside dbt_project.yml by default.
        QCOMPARE(dialog.specPath(), dir.filePath(QStringLiteral("shop/rewind.json")));
        QVERIFY(!QFile::exists(dialog.specPath())); // nothing written yet
        const QStandardItemModel *m = dialog.mapping();
        QCOMPARE(m->rowCount(), 2);
        QCOMPARE(m->item(0, 0)->text(), QStringLiteral("model.shop.fct_big"));
        QCOMPARE(m->item(0, 2)->text(), QStringLiteral("overwrite_partition"));
        QCOMPARE(m->item(1, 1)->text(), QStringLiteral("fct_sales"));
        QCOMPARE(m->item(1, 3)->text(), QStringLiteral("order_id"));
        shoot(&dialog, QStringLiteral("importdbt"));

        QSignalSpy finished(&dialog, &ImportDbtDialog::importFinished);
        auto *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QVERIFY(ok->isEnabled());
        ok->click();
        QVERIFY(finished.wait(kTimeoutMs));
        QCOMPARE(finished.takeFirst().at(0).toString(), QString());
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QVERIFY(QFile::exists(dialog.specPath()));

        // The same project again: the spec is there, so the import goes into
        // it (hand-written datasets kept), ticked by default.
        ImportDbtDialog again;
        QSignalSpy shownAgain(&again, &ImportDbtDialog::mappingShown);
        again.setDatabase(db.url().text);
        again.setManifest(manifest);
        QVERIFY(shownAgain.wait(kTimeoutMs));
        QCOMPARE(shownAgain.takeFirst().at(0).toString(), QString());
        auto *update = again.findChild<QCheckBox *>();
        QVERIFY(update->isEnabled() && update->isChecked());
        QVERIFY(again.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
        // Unticked: nothing would replace the spec.
        update->setChecked(false);
        QVERIFY(shownAgain.wait(kTimeoutMs));
        QVERIFY(!again.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());

        // Opened: each dataset shows it came from dbt.
        MainWindow w;
        w.show();
        QSignalSpy opened(&w, &MainWindow::workspaceOpened);
        w.openWorkspace(dialog.database(), dialog.specPath());
        QVERIFY(opened.wait(kTimeoutMs));
        QTreeWidgetItem *sales = item(w, QStringLiteral("fct_sales"));
        QVERIFY(sales);
        QVERIFY2(sales->text(1).endsWith(QStringLiteral("dbt")), qPrintable(sales->text(1)));
        QVERIFY(sales->toolTip(0).contains(QStringLiteral("model.shop.fct_sales (checksum s1)")));

        // The project changes: the navigator flags the model.
        testsupport::writeFile(
            dir, QStringLiteral("shop/target/manifest.json"),
            dbtdata::driftManifest(QStringLiteral("s2"),
                                   QStringLiteral("select order_id, amount from raw_sales"), true));
        w.openWorkspace(dialog.database(), dialog.specPath());
        QVERIFY(opened.wait(kTimeoutMs));
        sales = item(w, QStringLiteral("fct_sales"));
        QVERIFY(sales);
        QVERIFY2(sales->text(1).contains(QStringLiteral("model changed")),
                 qPrintable(sales->text(1)));
        QVERIFY(sales->toolTip(0).contains(QStringLiteral("checksum is s2")));
        QVERIFY(!item(w, QStringLiteral("fct_big"))->text(1).contains(QStringLiteral("changed")));
        shoot(&w, QStringLiteral("navigator-dbt"));
    }

    // A manifest that is not one: the reason shown, nothing to import.
    void badManifestIsNamed() {
        QTemporaryDir dir;
        const QString manifest =
            testsupport::writeFile(dir, QStringLiteral("manifest.json"), "{\"metadata\": ");
        ImportDbtDialog dialog;
        QSignalSpy shown(&dialog, &ImportDbtDialog::mappingShown);
        dialog.setDatabase(dir.filePath(QStringLiteral("w.db")));
        dialog.setManifest(manifest);
        QVERIFY(shown.wait(kTimeoutMs));
        QVERIFY(shown.takeFirst().at(0).toString().contains(QStringLiteral("is not JSON")));
        QCOMPARE(dialog.mapping()->rowCount(), 0);
        QVERIFY(!dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
    }
};

QTEST_MAIN(TestImportDbt)
#include "tst_importdbt.moc"
