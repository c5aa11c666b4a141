#pragma once

#include "core/dbt/dbtimport.h"
#include "ui/common/jobtracker.h"

#include <QDialog>
#include <QTemporaryDir>
#include <memory>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QStandardItemModel;
class QTableView;
class QTimer;

namespace rw {

// File > Import dbt project...: chooses a project's manifest, shows what
// each model and snapshot becomes (or why it is left out) before anything
// is written, then writes the spec (checked against the database) and
// leaves opening it to the main window. Manifests are read and specs
// written off the GUI thread.
class ImportDbtDialog : public QDialog {
    Q_OBJECT
public:
    explicit ImportDbtDialog(QWidget *parent = nullptr);

    void setManifest(const QString &path);
    void setDatabase(const QString &db);
    void setBrowseDir(const QString &dir) { m_browseDir = dir; }
    QString browseDir() const { return m_browseDir; }
    QString database() const;
    QString specPath() const;
    // The mapping table's rows (one per model, snapshot and seed).
    const QStandardItemModel *mapping() const { return m_model; }

Q_SIGNALS:
    // The manifest was read (or not: `error` says why).
    void mappingShown(const QString &error);
    // The spec was written (accept() follows), or could not be.
    void importFinished(const QString &error);

private:
    dbt::ImportOptions options() const;
    void invalidate(); // a path changed: the plan shown no longer holds
    void replan();
    void showPlan(std::shared_ptr<const dbt::ImportPlan> plan);
    void import();
    void browseManifest();
    void browseProject();
    void browseDatabase();
    void browseSpec();

    QLineEdit *m_manifest;
    QLineEdit *m_db;
    QLineEdit *m_out;
    QCheckBox *m_update;
    QLabel *m_summary;
    QTableView *m_table;
    QStandardItemModel *m_model;
    QDialogButtonBox *m_buttons;
    QTimer *m_debounce;
    QString m_browseDir;
    // Where dbt compiles a project folder while the mapping is only shown;
    // the import copies it beside the spec.
    QTemporaryDir m_compileDir;
    std::shared_ptr<const dbt::ImportPlan> m_plan;
    dbt::ImportOptions m_planOptions; // what m_plan was made from
    bool m_writing = false;
    JobTracker m_jobs{this};   // reading manifests: the latest wins
    JobTracker m_writes{this}; // the write: never superseded by a read
};

} // namespace rw
