#include "ui/window/importdbtdialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QStringBuilder>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace rw {

namespace {

QWidget *withBrowse(QLineEdit *edit, QPushButton *button) {
    auto *row = new QWidget;
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    layout->addWidget(button);
    return row;
}

// Where a project's spec goes by default: beside dbt_project.yml (the
// manifest's folder's parent when the manifest sits in target/).
QString defaultSpec(const QString &manifest) {
    if (QFileInfo(manifest).isDir())
        return QDir(manifest).filePath(QStringLiteral("rewind.json"));
    QDir dir = QFileInfo(manifest).absoluteDir();
    if (dir.dirName() == QLatin1String("target"))
        dir.cdUp();
    return dir.filePath(QStringLiteral("rewind.json"));
}

} // namespace

ImportDbtDialog::ImportDbtDialog(QWidget *parent)
    : QDialog(parent)
    , m_manifest(new QLineEdit(this))
    , m_db(new QLineEdit(this))
    , m_out(new QLineEdit(this))
    , m_update(new QCheckBox(tr("Import again into this spec: refresh its dbt datasets, keep the "
                                "ones written by hand"),
                             this))
    , m_summary(new QLabel(this))
    , m_table(new QTableView(this))
    , m_model(new QStandardItemModel(0, 7, this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
    , m_debounce(new QTimer(this)) {
    setWindowTitle(tr("Import dbt project"));
    m_manifest->setObjectName(QStringLiteral("manifestPath"));
    m_db->setObjectName(QStringLiteral("databasePath"));
    m_out->setObjectName(QStringLiteral("specPath"));
    m_manifest->setPlaceholderText(tr("A dbt project folder (its dbt compiles it) or its "
                                      "target/manifest.json (dbt 1.6 and later)"));
    m_db->setPlaceholderText(tr("SQLite file, sqlite:PATH or postgresql://user@host/db"));
    m_out->setPlaceholderText(tr("The spec to write"));
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Import and open"));

    auto *browseManifest = new QPushButton(tr("Manifest\u2026"), this);
    auto *browseProject = new QPushButton(tr("Folder\u2026"), this);
    browseProject->setObjectName(QStringLiteral("browseProject"));
    auto *browseDb = new QPushButton(tr("Browse\u2026"), this);
    auto *browseSpec = new QPushButton(tr("Browse\u2026"), this);
    connect(browseManifest, &QPushButton::clicked, this, &ImportDbtDialog::browseManifest);
    connect(browseProject, &QPushButton::clicked, this, &ImportDbtDialog::browseProject);
    connect(browseDb, &QPushButton::clicked, this, &ImportDbtDialog::browseDatabase);
    connect(browseSpec, &QPushButton::clicked, this, &ImportDbtDialog::browseSpec);

    auto *form = new QFormLayout;
    auto *source = withBrowse(m_manifest, browseManifest);
    source->layout()->addWidget(browseProject);
    form->addRow(tr("&Project:"), source);
    form->addRow(tr("&Database:"), withBrowse(m_db, browseDb));
    form->addRow(tr("&Spec to write:"), withBrowse(m_out, browseSpec));
    form->addRow(QString(), m_update);

    m_model->setHorizontalHeaderLabels({tr("Node"), tr("Became"), tr("Write"), tr("Key"),
                                        tr("Partition"), tr("Checks"), tr("Why")});
    m_table->setModel(m_model);
    m_table->setObjectName(QStringLiteral("mapping"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_buttons);
    resize(1000, 560);

    // Read again a moment after the paths stop changing.
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(300);
    connect(m_debounce, &QTimer::timeout, this, &ImportDbtDialog::replan);
    for (QLineEdit *edit : {m_manifest, m_db, m_out})
        connect(edit, &QLineEdit::textChanged, this, &ImportDbtDialog::invalidate);
    connect(m_update, &QCheckBox::toggled, this, &ImportDbtDialog::invalidate);
    // An existing spec is imported into again, unless the box is unticked.
    connect(m_out, &QLineEdit::textChanged, this, [this](const QString &path) {
        const bool exists = QFileInfo::exists(path.trimmed());
        m_update->setEnabled(exists);
        m_update->setChecked(exists);
    });
    connect(m_manifest, &QLineEdit::textChanged, this, [this](const QString &path) {
        if (m_out->text().isEmpty() && !path.isEmpty())
            m_out->setText(defaultSpec(path));
    });
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ImportDbtDialog::import);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    m_summary->setText(tr("Choose the project's folder: its own dbt compiles it (a full "
                          "refresh, into .rewind-dbt/ beside the spec; profiles as dbt finds "
                          "them). Or a manifest dbt wrote (target/manifest.json)."));
}

void ImportDbtDialog::setManifest(const QString &path) {
    m_manifest->setText(path);
}
void ImportDbtDialog::setDatabase(const QString &db) {
    m_db->setText(db);
}
QString ImportDbtDialog::database() const {
    return m_db->text().trimmed();
}
QString ImportDbtDialog::specPath() const {
    return m_out->text().trimmed();
}

dbt::ImportOptions ImportDbtDialog::options() const {
    dbt::ImportOptions o;
    const QString source = m_manifest->text().trimmed();
    if (dbt::isProjectDir(source)) {
        o.project.projectDir = source;
        o.project.outputDir = m_compileDir.filePath(QStringLiteral("compiled"));
    } else
        o.manifest = source;
    o.db = database();
    o.out = specPath();
    if (m_update->isChecked())
        o.update = o.out;
    return o;
}

void ImportDbtDialog::invalidate() {
    if (m_writing)
        return;
    m_plan.reset();
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    m_debounce->start();
}

void ImportDbtDialog::replan() {
    if (m_writing)
        return;
    m_plan.reset();
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    dbt::ImportOptions o = options();
    // Planning writes nothing: an existing spec is the summary's business.
    o.force = true;
    if ((o.manifest.isEmpty() && o.project.projectDir.isEmpty()) || o.out.isEmpty()) {
        m_model->removeRows(0, m_model->rowCount());
        return;
    }
    m_summary->setText(o.project.projectDir.isEmpty()
                           ? tr("Reading %1\u2026").arg(QFileInfo(o.manifest).fileName())
                           : tr("dbt is compiling %1\u2026").arg(o.project.projectDir));
    m_jobs.start(
        [o]() -> Result<std::shared_ptr<const dbt::ImportPlan>> {
            auto plan = dbt::planImport(o);
            if (!plan)
                return fail(plan.error());
            return std::make_shared<const dbt::ImportPlan>(std::move(*plan));
        },
        [this, o](Result<std::shared_ptr<const dbt::ImportPlan>> plan) {
            m_planOptions = o;
            if (!plan) {
                m_model->removeRows(0, m_model->rowCount());
                m_summary->setText(plan.error().message);
                Q_EMIT mappingShown(plan.error().message);
                return;
            }
            showPlan(*plan);
            Q_EMIT mappingShown(QString());
        });
}

void ImportDbtDialog::showPlan(std::shared_ptr<const dbt::ImportPlan> plan) {
    m_plan = std::move(plan);
    m_model->removeRows(0, m_model->rowCount());
    int mapped = 0;
    for (const dbt::MappedNode &n : m_plan->nodes) {
        mapped += n.mapped ? 1 : 0;
        QString why = n.mapped ? QString() : n.reason;
        if (n.mapped && !n.unmappedTests.empty())
            why = tr("%n test(s) with no gate", nullptr, int(n.unmappedTests.size()));
        QList<QStandardItem *> row{
            new QStandardItem(n.uniqueId),
            new QStandardItem(n.mapped ? n.dataset : tr("(left out)")),
            new QStandardItem(n.mapped ? n.write : QStringLiteral("-")),
            new QStandardItem(n.key.isEmpty() ? QStringLiteral("-") : n.key.join(u',')),
            new QStandardItem(n.partition.isEmpty()     ? QStringLiteral("-")
                              : n.granularity.isEmpty() ? n.partition
                                                        : n.granularity % tr(" of ") % n.partition),
            new QStandardItem(QString::number(n.checks)),
            new QStandardItem(why)};
        QStringList tip;
        if (!n.mapped)
            tip << n.reason;
        for (const auto &[id, reason] : n.unmappedTests)
            tip << tr("%1: no gate (%2)").arg(id, reason);
        for (QStandardItem *item : row) {
            item->setToolTip(tip.join(u'\n'));
            if (!n.mapped)
                item->setEnabled(false); // greyed: left out
        }
        m_model->appendRow(row);
    }
    m_table->resizeColumnsToContents();
    const dbt::Manifest &m = m_plan->manifest;
    QString text = tr("Manifest %1 (dbt %2, %3): %4 of %5 nodes become datasets.")
                       .arg(m.schemaVersion, m.dbtVersion,
                            m.adapter.isEmpty() ? tr("adapter not recorded") : m.adapter)
                       .arg(mapped)
                       .arg(m_plan->nodes.size());
    if (m_update->isChecked())
        text += u' ' + tr("Into the existing spec: %1 imported again, %2 added, %3 written by "
                          "hand kept, %4 removed.")
                           .arg(m_plan->update.replaced.size())
                           .arg(m_plan->update.added.size())
                           .arg(m_plan->update.kept.size())
                           .arg(m_plan->update.removed.size());
    else if (QFileInfo::exists(specPath()))
        text += u' ' + tr("%1 exists: tick \u201cImport again\u201d to refresh it, or choose "
                          "another spec.")
                           .arg(QFileInfo(specPath()).fileName());
    m_summary->setText(text);
    m_buttons->button(QDialogButtonBox::Ok)
        ->setEnabled(mapped > 0 && !database().isEmpty() &&
                     (m_update->isChecked() || !QFileInfo::exists(specPath())));
}

void ImportDbtDialog::import() {
    dbt::ImportOptions o = options();
    o.force = true;
    const dbt::ImportOptions &p = m_planOptions;
    if (!m_plan || o.manifest != p.manifest || o.project.projectDir != p.project.projectDir ||
        o.db != p.db || o.out != p.out || o.update != p.update) {
        replan(); // the paths changed since the mapping shown was read
        return;
    }
    if (QFileInfo::exists(o.out) && o.update.isEmpty())
        return; // the button is off then; Enter does not replace a spec
    m_writing = true;
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    m_summary->setText(tr("Writing %1 and checking it against the database\u2026").arg(o.out));
    m_writes.start([plan = m_plan, o]() { return dbt::writeImport(*plan, o); },
                   [this](Result<QHash<QString, QString>> broken) {
                       m_writing = false;
                       if (!broken) {
                           m_summary->setText(broken.error().message);
                           m_buttons->button(QDialogButtonBox::Ok)->setEnabled(true);
                           Q_EMIT importFinished(broken.error().message);
                           return;
                       }
                       Q_EMIT importFinished(QString());
                       accept();
                   });
}

void ImportDbtDialog::browseManifest() {
    const QString path = QFileDialog::getOpenFileName(this, tr("dbt manifest"), m_browseDir,
                                                      tr("dbt manifests (manifest.json *.json)"));
    if (path.isEmpty())
        return;
    m_manifest->setText(path);
    m_browseDir = QFileInfo(path).absolutePath();
}

void ImportDbtDialog::browseProject() {
    const QString path = QFileDialog::getExistingDirectory(this, tr("dbt project"), m_browseDir);
    if (path.isEmpty())
        return;
    m_manifest->setText(path);
    m_browseDir = path;
}

void ImportDbtDialog::browseDatabase() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Database"), m_browseDir,
        tr("SQLite databases (*.db *.sqlite *.sqlite3);;All files (*)"));
    if (!path.isEmpty())
        m_db->setText(path);
}

void ImportDbtDialog::browseSpec() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Spec to write"), specPath(),
                                                      tr("Pipeline specs (*.json)"), nullptr,
                                                      QFileDialog::DontConfirmOverwrite);
    if (!path.isEmpty())
        m_out->setText(path);
}

} // namespace rw
