// The hazard list: groups as `racetrack check` reports them (signature,
// count, kind, class, confidence, streams) with their instances below,
// filters, and next/previous navigation over what the filters leave.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "hazard_model.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTreeWidget;
class QTreeWidgetItem;

namespace racetrack::viewer {

class HazardPanel : public QWidget {
  Q_OBJECT
 public:
  explicit HazardPanel(QWidget* parent = nullptr);

  void setHazards(std::shared_ptr<const HazardModel> hazards);
  void clear(const QString& message);

  // Per instance: whether the filters let it through (for the overlay).
  std::vector<uint8_t> visibleInstances() const;
  // Instances in list order, as filtered.
  std::vector<uint32_t> listedInstances() const;
  std::optional<uint32_t> selectedInstance() const;
  void selectInstance(uint32_t instance);
  // The first listed instance of the group numbered `number`
  // (race::hazard_number, as `racetrack check` numbers them).
  bool selectGroup(int number);
  void selectNext();
  void selectPrevious();

  // Filters: minimum confidence ("definite", "likely", "possible"), kind
  // ("RAW"...; empty: any), class, and a regex over signature and streams.
  void setFilters(const QString& min_confidence, const QString& kind, const QString& cls,
                  const QString& text);
  QTreeWidget* tree() const { return tree_; }

 signals:
  void instanceSelected(uint32_t instance);
  void filterChanged();

 private:
  void rebuild();
  void step(int direction);

  std::shared_ptr<const HazardModel> hazards_;
  QComboBox* confidence_ = nullptr;
  QComboBox* kind_ = nullptr;
  QComboBox* class_ = nullptr;
  QLineEdit* text_ = nullptr;
  QLabel* summary_ = nullptr;
  QTreeWidget* tree_ = nullptr;
  bool rebuilding_ = false;
};

}  // namespace racetrack::viewer
