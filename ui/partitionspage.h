#pragma once

#include "database.h"
#include "page.h"
#include "spec.h"

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace rw {

class PartitionsModel;
class PartitionsProxyModel;
class StatTile;

// One dataset's partitions: what the source holds, what is published and
// their status, with totals in the header.
class PartitionsPage : public Page {
    Q_OBJECT
public:
    explicit PartitionsPage(QWidget *parent = nullptr);

    // Shows `dataset` and starts loading its partitions in the background.
    void setDataset(const Database &db, const DatasetSpec &dataset);
    QString datasetName() const;

    void refresh() override;
    void clear() override;
    QString title() const override;
    QString statusText() const override;

    QTableView *view() const { return m_view; }
    PartitionsModel *model() const { return m_model; }
    PartitionsProxyModel *proxy() const { return m_proxy; }
    // The header (title, facts and figures) as one line of plain text.
    QString summaryText() const;

private:
    void updateHeader();
    void updateCounts();
    void applyStatusFilter(int comboIndex);

    std::optional<Database> m_db;
    std::optional<DatasetSpec> m_dataset;

    QLabel *m_title;
    QLabel *m_subtitle;
    QLabel *m_statusChips;
    QString m_summary; // the tiles' figures as text
    StatTile *m_partitionsTile;
    StatTile *m_sourceTile;
    StatTile *m_targetTile;
    StatTile *m_duplicatesTile;
    StatTile *m_attentionTile;
    QLineEdit *m_filter;
    QComboBox *m_statusCombo;
    QLabel *m_shownCount;
    QTableView *m_view;
    PartitionsModel *m_model;
    PartitionsProxyModel *m_proxy;
};

} // namespace rw
