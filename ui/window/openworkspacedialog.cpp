#include "ui/window/openworkspacedialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
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

} // namespace

OpenWorkspaceDialog::OpenWorkspaceDialog(QWidget *parent)
    : QDialog(parent)
    , m_db(new QLineEdit(this))
    , m_spec(new QLineEdit(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this)) {
    setWindowTitle(tr("Open workspace"));
    m_db->setObjectName(QStringLiteral("databasePath"));
    m_spec->setObjectName(QStringLiteral("specPath"));
    m_db->setPlaceholderText(tr("SQLite file, sqlite:PATH or postgresql://user@host/db"));
    m_spec->setPlaceholderText(tr("Pipeline spec (JSON)"));
    m_db->setMinimumWidth(420);

    auto *browseDb = new QPushButton(tr("Browse\u2026"), this);
    auto *browseSpec = new QPushButton(tr("Browse\u2026"), this);
    connect(browseDb, &QPushButton::clicked, this, &OpenWorkspaceDialog::browseDatabase);
    connect(browseSpec, &QPushButton::clicked, this, &OpenWorkspaceDialog::browseSpec);

    auto *form = new QFormLayout;
    form->addRow(tr("&Database:"), withBrowse(m_db, browseDb));
    form->addRow(tr("&Spec:"), withBrowse(m_spec, browseSpec));

    auto *hint = new QLabel(tr("A workspace is a database plus the pipeline spec that describes "
                               "its datasets and streams."),
                            this);
    hint->setWordWrap(true);
    hint->setEnabled(false);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(hint);
    layout->addLayout(form);
    layout->addWidget(m_buttons);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_db, &QLineEdit::textChanged, this, &OpenWorkspaceDialog::updateOk);
    connect(m_spec, &QLineEdit::textChanged, this, &OpenWorkspaceDialog::updateOk);
    updateOk();
}

void OpenWorkspaceDialog::setPaths(const QString &db, const QString &spec) {
    m_db->setText(db);
    m_spec->setText(spec);
}

QString OpenWorkspaceDialog::databasePath() const {
    return m_db->text().trimmed();
}
QString OpenWorkspaceDialog::specPath() const {
    return m_spec->text().trimmed();
}

void OpenWorkspaceDialog::browseDatabase() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Database"), m_browseDir,
        tr("SQLite databases (*.db *.sqlite *.sqlite3);;All files (*)"));
    if (path.isEmpty())
        return;
    m_db->setText(path);
    m_browseDir = QFileInfo(path).absolutePath();
}

void OpenWorkspaceDialog::browseSpec() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Pipeline spec"), m_browseDir,
                                                      tr("Pipeline specs (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    m_spec->setText(path);
    m_browseDir = QFileInfo(path).absolutePath();
}

void OpenWorkspaceDialog::updateOk() {
    m_buttons->button(QDialogButtonBox::Open)
        ->setEnabled(!databasePath().isEmpty() && !specPath().isEmpty());
}

} // namespace rw
