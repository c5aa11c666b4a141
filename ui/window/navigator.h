#pragma once

#include "core/dbt/drift.h"

#include <QWidget>
#include <vector>

class QTreeWidget;
class QTreeWidgetItem;

namespace rw {

struct Spec;

// The left-hand tree: a Datasets group and a Streams group built from the
// spec. Emits which item the operator selected.
class Navigator : public QWidget {
    Q_OBJECT
public:
    enum class Kind { None, Dataset, Stream, Page };

    explicit Navigator(QWidget *parent = nullptr);

    // The spec's datasets and streams; a dataset imported from dbt shows
    // its model, flagged where `drift` says it changed or went since.
    void setSpec(const Spec &spec, const std::vector<dbt::ModelDrift> &drift = {});
    void clear();

    // Select an item without emitting twice; returns false if it is not there.
    bool select(Kind kind, const QString &name);
    Kind currentKind() const;
    QString currentName() const;
    QTreeWidget *tree() const { return m_tree; }

Q_SIGNALS:
    void datasetSelected(const QString &name);
    void streamSelected(const QString &name);
    // A console page that is not about one dataset or stream: preview, runs, audit.
    void pageSelected(const QString &name);

private:
    void onCurrentChanged(QTreeWidgetItem *current);
    QTreeWidgetItem *find(Kind kind, const QString &name) const;

    QTreeWidget *m_tree;
    QTreeWidgetItem *m_datasets = nullptr;
    QTreeWidgetItem *m_streams = nullptr;
    QTreeWidgetItem *m_pages = nullptr;
};

} // namespace rw
