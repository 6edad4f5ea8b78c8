// The details of the selection: an op's kind, name, stream, times, NVTX
// path, accesses with regions and labels, argument words and the ops it is
// ordered after and before (fetched from the file on demand); for a hazard
// also its overlap (highlighted among each op's accesses), explanation and
// suggested fix, the latter two also whole, word-wrapped and selectable in a
// box below the tree (tree cells elide long text); for two ops the
// happens-before chain between them.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "hazard_model.h"
#include "memory_view.h"
#include "op_fetcher.h"

class QPlainTextEdit;
class QTreeWidget;
class QTreeWidgetItem;

namespace racetrack::viewer {

// The overlap of a hazard, to highlight in an op's accesses.
struct Overlap {
  race::SpaceKey space = 0;
  uint64_t lo = 0, hi = 0;
};

class DetailsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DetailsPanel(QWidget* parent = nullptr);

  // `fetcher` reads ops back from the model's file; it outlives the panel's
  // use of this model.
  void setModel(std::shared_ptr<const TraceModel> model, OpFetcher* fetcher);
  void clear();
  void showOp(OpRef ref);
  void showHazard(const HazardModel& hazards, uint32_t instance);
  // The chain (or its absence) between two ops.
  void showChain(uint64_t first, uint64_t second, const std::vector<hb::HbEdge>& chain, const QString& error);

  // The value of a field: the first row named `field` under the first
  // section whose title starts with `section`; empty when there is none.
  QString field(const QString& section, const QString& field) const;
  // Rows highlighted as a hazard's overlap.
  int highlightedRows() const;
  QTreeWidget* tree() const { return tree_; }
  // The box with a hazard's explanation and fix in full; hidden otherwise.
  QPlainTextEdit* fixBox() const { return fix_box_; }

 signals:
  void opActivated(uint64_t seq);
  void memoryRequested(const racetrack::viewer::MemoryQuery& query);

 private:
  QTreeWidgetItem* section(const QString& title);
  QTreeWidgetItem* row(QTreeWidgetItem* parent, const QString& field, const QString& value);
  void addOp(const QString& title, uint64_t seq, const std::optional<Overlap>& overlap,
             const race::HazardSide* side);
  void addAccesses(QTreeWidgetItem* section, const v1::Op& op, const std::optional<Overlap>& overlap,
                   const race::HazardSide* side);
  void addArguments(QTreeWidgetItem* section, const v1::Op& op);
  void addOrdering(QTreeWidgetItem* section, uint64_t seq);
  void showFixText(const race::HazardGroup& group, const race::Fix& fix, bool checked);
  QString opLine(const v1::Op& op) const;

  std::shared_ptr<const TraceModel> model_;
  OpFetcher* fetcher_ = nullptr;
  QTreeWidget* tree_ = nullptr;
  QPlainTextEdit* fix_box_ = nullptr;
};

}  // namespace racetrack::viewer
