#include "ui/audit/auditpage.h"

#include "ui/audit/auditmodel.h"
#include "ui/audit/auditproxymodel.h"
#include "ui/common/style.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSet>
#include <QStackedWidget>
#include <QStringBuilder>
#include <QTableView>
#include <QTime>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

namespace rw {

namespace {

QString csvField(const QString &text) {
    if (!text.contains(u',') && !text.contains(u'"') && !text.contains(u'\n') &&
        !text.contains(u'\r'))
        return text;
    QString quoted = text;
    quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
    return u'"' % quoted % u'"';
}

} // namespace

AuditPage::AuditPage(QWidget *parent)
    : Page(parent)
    , m_dataset(new QComboBox(this))
    , m_action(new QComboBox(this))
    , m_count(new QLabel(this))
    , m_chain(new QLabel(this))
    , m_verifyAll(new QPushButton(tr("Verify every row"), this))
    , m_export(new QPushButton(tr("Export\u2026"), this))
    , m_stack(new QStackedWidget(this))
    , m_empty(new QLabel(this))
    , m_view(new QTableView(this))
    , m_model(new AuditModel(this))
    , m_proxy(new AuditProxyModel(this)) {
    setObjectName(QStringLiteral("auditPage"));
    auto *title = new QLabel(tr("Audit log"), this);
    style::makeTitle(title);
    auto *subtitle = new QLabel(tr("Every preview, run, publish, resume and cancel, with who did "
                                   "it and when; newest first."),
                                this);
    subtitle->setStyleSheet(style::textColour(style::Colour::Subtitle));

    m_dataset->setObjectName(QStringLiteral("auditDataset"));
    m_action->setObjectName(QStringLiteral("auditAction"));
    m_dataset->setMinimumContentsLength(18);
    m_action->setMinimumContentsLength(18);
    connect(m_dataset, &QComboBox::currentIndexChanged, this, [this] {
        m_proxy->setSubjectFilter(m_dataset->currentData().toString());
        updateCount();
    });
    connect(m_action, &QComboBox::currentIndexChanged, this, [this] {
        m_proxy->setActionFilter(m_action->currentData().toString());
        updateCount();
    });
    m_export->setToolTip(tr("Save the rows shown as CSV or JSON"));
    connect(m_export, &QPushButton::clicked, this, &AuditPage::exportWithDialog);

    auto *filters = new QHBoxLayout;
    filters->addWidget(new QLabel(tr("Dataset / stream:"), this));
    filters->addWidget(m_dataset);
    filters->addSpacing(12);
    filters->addWidget(new QLabel(tr("Action:"), this));
    filters->addWidget(m_action);
    filters->addStretch(1);
    filters->addWidget(m_count);
    filters->addWidget(m_export);

    m_chain->setObjectName(QStringLiteral("auditChain"));
    m_chain->setWordWrap(true);
    m_chain->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verifyAll->setObjectName(QStringLiteral("auditVerifyAll"));
    m_verifyAll->setToolTip(tr("Recompute the hash of every row of the log, oldest first (a "
                               "refresh recomputes only the rows written since the last check)"));
    connect(m_verifyAll, &QPushButton::clicked, this, &AuditPage::verifyWholeChain);
    auto *chainRow = new QHBoxLayout;
    chainRow->addWidget(m_chain, 1);
    chainRow->addWidget(m_verifyAll, 0, Qt::AlignTop);

    m_proxy->setSourceModel(m_model);
    m_view->setObjectName(QStringLiteral("auditView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(AuditModel::IdColumn, Qt::DescendingOrder);
    measureFirstRowsOnly(m_view);
    style::setupTable(m_view, 8, true);

    m_empty->setObjectName(QStringLiteral("auditEmpty"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setText(
        style::emptyState(tr("Nothing audited yet"), tr("Previews, runs, resumes and cancels are "
                                                        "recorded here as they happen.")));
    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_view);

    auto *layout = style::pageLayout(this);
    layout->addWidget(title);
    layout->addWidget(subtitle);
    layout->addLayout(chainRow);
    layout->addLayout(filters);
    layout->addWidget(m_stack, 1);
    clear();
}

void AuditPage::setDatabase(const Database &db) {
    m_db = db;
    refresh();
}

void AuditPage::clear() {
    cancelLoad();
    m_db.reset();
    m_model->resetData({});
    m_chain->clear();
    m_chainCheck.reset();
    m_fullCheckAt.clear();
    rebuildFilterChoices();
    m_stack->setCurrentWidget(m_empty);
    updateCount();
}

bool AuditPage::showsEmptyState() const {
    return m_stack->currentWidget() == m_empty;
}

QString AuditPage::statusText() const {
    return tr("Audit log: %1").arg(m_count->text());
}

void AuditPage::refresh() {
    if (!m_db)
        return;
    struct Loaded {
        std::vector<AuditRow> rows;
        AuditChainCheck chain;
    };
    startLoad(
        tr("Loading the audit log\u2026"),
        [db = *m_db, since = m_chainCheck]() -> Result<Loaded> {
            auto rows = listAudit(db.control(), {}, kLimit);
            if (!rows)
                return fail(rows.error());
            // Off the GUI thread: every row the first time, then the rows
            // since the head that held.
            auto chain = verifyAuditChain(db.control(), since ? &*since : nullptr);
            if (!chain)
                return fail(chain.error());
            return Loaded{std::move(*rows), std::move(*chain)};
        },
        [this](Result<Loaded> result) {
            if (!result) {
                Q_EMIT loadFailed(
                    tr("Could not load the audit log: %1").arg(result.error().message));
                return;
            }
            showChain(result->chain);
            m_model->resetData(std::move(result->rows));
            rebuildFilterChoices();
            m_stack->setCurrentIndex(m_model->rowCount() == 0 ? 0 : 1);
            style::fitColumns(m_view, AuditModel::DetailColumn + 1, 12);
            updateCount();
            Q_EMIT pageLoaded();
        });
}

void AuditPage::verifyWholeChain() {
    m_chainCheck.reset();
    refresh();
}

void AuditPage::showChain(const AuditChainCheck &check) {
    m_chainCheck = check;
    if (check.full)
        m_fullCheckAt = QLocale().toString(QTime::currentTime(), QLocale::ShortFormat);
    if (check.verified) {
        m_chain->setStyleSheet(style::textColour(style::Colour::Ok));
        m_chain->setText(
            check.rows == 0 ? tr("\u2714 Hash chain: the log is empty")
            : check.full
                ? tr("\u2714 Hash chain holds: %1 rows, every hash recomputed. Head %2")
                      .arg(QLocale().toString(check.rows), check.head.left(16))
                : tr("\u2714 Hash chain holds: %1 rows, every hash recomputed at %2 and the rows "
                     "since then at each refresh. Head %3")
                      .arg(QLocale().toString(check.rows), m_fullCheckAt, check.head.left(16)));
        m_chain->setToolTip(
            tr("Head hash %1: kept outside this database (rewindctl audit --head), it "
               "shows later whether the log was rewritten from any row on.")
                .arg(check.head));
        return;
    }
    m_chain->setStyleSheet(style::textColour(style::Colour::Error));
    m_chain->setText(tr("\u2716 Hash chain broken at row %1: %2")
                         .arg(check.broken->auditId)
                         .arg(check.broken->why));
    m_chain->setToolTip(tr("The log was changed outside Rewind at or before row %1. Rows after "
                           "it may still be genuine; compare with a head hash kept elsewhere.")
                            .arg(check.broken->auditId));
}

void AuditPage::rebuildFilterChoices() {
    const auto rebuild = [](QComboBox *combo, const QString &all, QStringList values) {
        const QString keep = combo->currentData().toString();
        const QSignalBlocker block(combo);
        combo->clear();
        combo->addItem(all, QString());
        if (!keep.isEmpty() && !values.contains(keep))
            values << keep;
        values.sort();
        for (const QString &v : values)
            combo->addItem(v, v);
        combo->setCurrentIndex(std::max(0, combo->findData(keep)));
    };
    QSet<QString> subjects, actions;
    for (const AuditRow &r : m_model->snapshot()) {
        const QString subject = r.dataset.isEmpty() ? r.stream : r.dataset;
        if (!subject.isEmpty())
            subjects.insert(subject);
        actions.insert(r.action);
    }
    rebuild(m_dataset, tr("All"), QStringList(subjects.begin(), subjects.end()));
    rebuild(m_action, tr("All actions"), QStringList(actions.begin(), actions.end()));
}

void AuditPage::setDatasetFilter(const QString &dataset) {
    int i = m_dataset->findData(dataset);
    if (i < 0) {
        m_dataset->addItem(dataset, dataset);
        i = m_dataset->count() - 1;
    }
    m_dataset->setCurrentIndex(dataset.isEmpty() ? 0 : i);
}

void AuditPage::setActionFilter(const QString &action) {
    int i = m_action->findData(action);
    if (i < 0) {
        m_action->addItem(action, action);
        i = m_action->count() - 1;
    }
    m_action->setCurrentIndex(action.isEmpty() ? 0 : i);
}

void AuditPage::updateCount() {
    const int total = m_model->rowCount();
    const int shown = m_proxy->rowCount();
    m_count->setText(shown == total ? tr("%1 entries").arg(total)
                                    : tr("%1 of %2 entries").arg(shown).arg(total));
    m_export->setEnabled(shown > 0);
}

bool AuditPage::exportTo(const QString &path, ExportFormat format) {
    QByteArray content;
    if (format == ExportFormat::Csv) {
        QString csv = QStringLiteral("id,at,os_user,action,dataset,stream,run_id,detail\n");
        for (int r = 0; r < m_proxy->rowCount(); ++r) {
            const AuditRow &a = m_model->row(m_proxy->mapToSource(m_proxy->index(r, 0)).row());
            const QStringList fields{QString::number(a.id),
                                     a.at,
                                     a.osUser,
                                     a.action,
                                     a.dataset,
                                     a.stream,
                                     a.runId.isNull() ? QString() : a.runId.toString(),
                                     a.detail};
            QStringList quoted;
            for (const QString &f : fields)
                quoted << csvField(f);
            csv += quoted.join(u',') % u'\n';
        }
        content = csv.toUtf8();
    } else {
        using Json = nlohmann::ordered_json;
        Json list = Json::array();
        for (int r = 0; r < m_proxy->rowCount(); ++r) {
            const AuditRow &a = m_model->row(m_proxy->mapToSource(m_proxy->index(r, 0)).row());
            Json detail = a.detail.isEmpty() ? Json(nullptr)
                                             : Json::parse(a.detail.toStdString(), nullptr, false);
            if (detail.is_discarded())
                detail = a.detail.toStdString();
            list.push_back(
                {{"id", a.id},
                 {"at", a.at.toStdString()},
                 {"os_user", a.osUser.toStdString()},
                 {"action", a.action.toStdString()},
                 {"dataset", a.dataset.isEmpty() ? Json(nullptr) : Json(a.dataset.toStdString())},
                 {"stream", a.stream.isEmpty() ? Json(nullptr) : Json(a.stream.toStdString())},
                 {"run_id", a.runId.isNull() ? Json(nullptr) : Json(a.runId.toLongLong())},
                 {"detail", detail}});
        }
        content = QByteArray::fromStdString(Json{{"audit", list}}.dump(2)) + '\n';
    }
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(content) != content.size()) {
        Q_EMIT loadFailed(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    return true;
}

void AuditPage::exportWithDialog() {
    QString filter;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export the audit log"), QStringLiteral("audit.csv"),
                                     tr("CSV (*.csv);;JSON (*.json)"), &filter);
    if (path.isEmpty())
        return;
    exportTo(path, path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive) ||
                           filter.contains(QLatin1String("json"), Qt::CaseInsensitive)
                       ? ExportFormat::Json
                       : ExportFormat::Csv);
}

} // namespace rw
