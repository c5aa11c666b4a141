#pragma once

#include "core/sql/audit.h"
#include "core/sql/database.h"
#include "ui/common/page.h"

#include <optional>

class QComboBox;
class QLabel;
class QPushButton;
class QStackedWidget;
class QTableView;

namespace rw {

class AuditModel;
class AuditProxyModel;

// Every audited action (previews, runs, publishes, resumes, cancels, later
// offset resets and DLQ actions), newest first, filterable by dataset and
// action, exportable as CSV or JSON.
class AuditPage : public Page {
    Q_OBJECT
public:
    enum class ExportFormat { Csv, Json };
    static constexpr int kLimit = 10000;

    explicit AuditPage(QWidget *parent = nullptr);

    void setDatabase(const Database &db);
    // Selects the filters (empty: all). Values unknown to the log are kept.
    void setDatasetFilter(const QString &dataset);
    void setActionFilter(const QString &action);
    // Writes the rows shown (filters applied); false with a banner message on failure.
    bool exportTo(const QString &path, ExportFormat format);

    void refresh() override;
    void clear() override;
    QString title() const override { return tr("Audit log"); }
    QString statusText() const override;

    AuditModel *model() const { return m_model; }
    AuditProxyModel *proxy() const { return m_proxy; }
    QTableView *view() const { return m_view; }
    bool showsEmptyState() const;
    // Whether the audit log's hash chain held when the page last loaded. The
    // first load after opening checks every row; later refreshes only the
    // rows since the head that held (core verifyAuditChain), until
    // verifyWholeChain() (the "Verify every row" button) checks all again.
    const std::optional<AuditChainCheck> &chainCheck() const { return m_chainCheck; }
    QLabel *chainLabel() const { return m_chain; }
    QPushButton *verifyButton() const { return m_verifyAll; }
    void verifyWholeChain();

private:
    void rebuildFilterChoices();
    void showChain(const AuditChainCheck &check);
    void updateCount();
    void exportWithDialog();

    std::optional<Database> m_db;
    QComboBox *m_dataset;
    QComboBox *m_action;
    QLabel *m_count;
    QLabel *m_chain;
    std::optional<AuditChainCheck> m_chainCheck;
    QString m_fullCheckAt; // when every row was last recomputed (local time)
    QPushButton *m_verifyAll;
    QPushButton *m_export;
    QStackedWidget *m_stack;
    QLabel *m_empty;
    QTableView *m_view;
    AuditModel *m_model;
    AuditProxyModel *m_proxy;
};

} // namespace rw
