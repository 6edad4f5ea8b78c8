#include "hazard_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "op_style.h"

namespace racetrack::viewer {
namespace {

enum Column { kWhat, kCount, kKind, kClass, kConfidence, kStreams, kColumnCount };
constexpr int kInstanceRole = Qt::UserRole + 1;  // instance index, on instance rows
constexpr int kGroupRole = Qt::UserRole + 2;     // race::hazard_number, on group rows
// A group lists at most this many instances; the count column has them all.
constexpr size_t kMaxInstancesPerGroup = 1000;

QString latin(std::string_view text) {
  return QString::fromLatin1(text.data(), static_cast<qsizetype>(text.size()));
}

}  // namespace

HazardPanel::HazardPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* filters = new QHBoxLayout;
  // Confidence is a threshold: the item's data is the lowest it lets in.
  confidence_ = new QComboBox(this);
  confidence_->addItem(tr("likely+"), static_cast<int>(race::Confidence::kLikely));
  confidence_->addItem(tr("definite"), static_cast<int>(race::Confidence::kDefinite));
  confidence_->addItem(tr("all"), static_cast<int>(race::Confidence::kPossible));
  confidence_->setToolTip(
      tr("Minimum confidence (the check lists possible hazards' groups, not every instance)"));
  kind_ = new QComboBox(this);
  kind_->addItem(tr("any kind"));
  for (auto k : {race::HazardKind::kRaw, race::HazardKind::kWar, race::HazardKind::kWaw})
    kind_->addItem(latin(race::kind_name(k)));
  class_ = new QComboBox(this);
  class_->addItem(tr("any class"));
  for (auto c :
       {race::HazardClass::kCopyVsCompute, race::HazardClass::kCopyVsCopy,
        race::HazardClass::kComputeVsCompute, race::HazardClass::kHostVsDevice, race::HazardClass::kReuse,
        race::HazardClass::kCommunication})
    class_->addItem(latin(race::class_name(c)));
  text_ = new QLineEdit(this);
  text_->setPlaceholderText(tr("filter (regex: name, NVTX, stream)"));
  text_->setClearButtonEnabled(true);
  filters->addWidget(confidence_);
  filters->addWidget(kind_);
  filters->addWidget(class_);
  layout->addLayout(filters);
  layout->addWidget(text_);
  summary_ = new QLabel(tr("No trace"), this);
  summary_->setWordWrap(true);
  layout->addWidget(summary_);
  tree_ = new QTreeWidget(this);
  tree_->setColumnCount(kColumnCount);
  tree_->setHeaderLabels(
      {tr("Hazard"), tr("Count"), tr("Kind"), tr("Class"), tr("Confidence"), tr("Streams")});
  tree_->setUniformRowHeights(true);
  tree_->setAlternatingRowColors(true);
  tree_->header()->setStretchLastSection(true);
  tree_->setColumnWidth(kWhat, 260);
  tree_->setColumnWidth(kCount, 50);
  tree_->setColumnWidth(kKind, 45);
  layout->addWidget(tree_, 1);

  for (QComboBox* box : {confidence_, kind_, class_})
    connect(box, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
  connect(text_, &QLineEdit::textChanged, this, [this] { rebuild(); });
  connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (rebuilding_ || !item) return;
    // A group row stands for its first listed instance.
    if (!item->data(kWhat, kInstanceRole).isValid() && item->childCount() > 0) item = item->child(0);
    const QVariant v = item->data(kWhat, kInstanceRole);
    if (v.isValid()) emit instanceSelected(v.toUInt());
  });
}

void HazardPanel::setHazards(std::shared_ptr<const HazardModel> hazards) {
  hazards_ = std::move(hazards);
  rebuild();
}

void HazardPanel::clear(const QString& message) {
  hazards_.reset();
  rebuilding_ = true;
  tree_->clear();
  rebuilding_ = false;
  summary_->setText(message);
}

void HazardPanel::setFilters(const QString& min_confidence, const QString& kind, const QString& cls,
                             const QString& text) {
  race::Confidence c = race::Confidence::kLikely;
  race::parse_confidence(min_confidence.toStdString(), c);
  confidence_->setCurrentIndex(std::max(0, confidence_->findData(static_cast<int>(c))));
  kind_->setCurrentIndex(std::max(0, kind_->findText(kind)));
  class_->setCurrentIndex(std::max(0, class_->findText(cls)));
  text_->setText(text);
  rebuild();
}

std::vector<uint8_t> HazardPanel::visibleInstances() const {
  std::vector<uint8_t> visible(hazards_ ? hazards_->instances().size() : 0, 0);
  for (uint32_t i : listedInstances()) visible[i] = 1;
  return visible;
}

std::vector<uint32_t> HazardPanel::listedInstances() const {
  std::vector<uint32_t> out;
  for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
    const QTreeWidgetItem* group = tree_->topLevelItem(g);
    for (int c = 0; c < group->childCount(); ++c)
      out.push_back(group->child(c)->data(kWhat, kInstanceRole).toUInt());
  }
  return out;
}

std::optional<uint32_t> HazardPanel::selectedInstance() const {
  const QTreeWidgetItem* item = tree_->currentItem();
  if (!item) return std::nullopt;
  if (!item->data(kWhat, kInstanceRole).isValid() && item->childCount() > 0) item = item->child(0);
  const QVariant v = item->data(kWhat, kInstanceRole);
  return v.isValid() ? std::optional<uint32_t>(v.toUInt()) : std::nullopt;
}

void HazardPanel::selectInstance(uint32_t instance) {
  for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
    QTreeWidgetItem* group = tree_->topLevelItem(g);
    for (int c = 0; c < group->childCount(); ++c)
      if (group->child(c)->data(kWhat, kInstanceRole).toUInt() == instance) {
        group->setExpanded(true);
        tree_->setCurrentItem(group->child(c));
        tree_->scrollToItem(group->child(c));
        return;
      }
  }
  // Filtered out: still show it.
  emit instanceSelected(instance);
}

bool HazardPanel::selectGroup(int number) {
  for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
    QTreeWidgetItem* group = tree_->topLevelItem(g);
    if (group->data(kWhat, kGroupRole).toInt() == number && group->childCount() > 0) {
      tree_->setCurrentItem(group->child(0));
      return true;
    }
  }
  return false;
}

void HazardPanel::selectNext() {
  step(1);
}
void HazardPanel::selectPrevious() {
  step(-1);
}

void HazardPanel::step(int direction) {
  const std::vector<uint32_t> listed = listedInstances();
  if (listed.empty()) return;
  const auto current = selectedInstance();
  auto it = current ? std::find(listed.begin(), listed.end(), *current) : listed.end();
  size_t at;
  if (it == listed.end())
    at = direction > 0 ? 0 : listed.size() - 1;
  else
    at = (static_cast<size_t>(it - listed.begin()) + listed.size() + static_cast<size_t>(direction)) %
         listed.size();
  selectInstance(listed[at]);
}

void HazardPanel::rebuild() {
  if (!hazards_) return;
  const auto previous = selectedInstance();
  rebuilding_ = true;
  tree_->clear();
  const race::CheckResult& result = hazards_->result();
  const auto min = static_cast<race::Confidence>(confidence_->currentData().toInt());
  const QString kind = kind_->currentIndex() > 0 ? kind_->currentText() : QString();
  const QString cls = class_->currentIndex() > 0 ? class_->currentText() : QString();
  const QRegularExpression pattern(text_->text(), QRegularExpression::CaseInsensitiveOption);
  uint64_t listed_groups = 0, listed_hazards = 0;
  for (size_t g = 0; g < result.groups.size(); ++g) {
    const race::HazardGroup& group = result.groups[g];
    const race::Hazard& first = group.first;
    const QString streams = hazards_->streams(first);
    const QString signature = QString::fromStdString(group.signature);
    if (group.confidence < min || group.suppressed) continue;
    if (!kind.isEmpty() && latin(race::kind_name(first.kind)) != kind) continue;
    if (!cls.isEmpty() && latin(race::class_name(first.cls)) != cls) continue;
    if (pattern.isValid() && !text_->text().isEmpty() && !pattern.match(signature).hasMatch() &&
        !pattern.match(streams).hasMatch())
      continue;
    const uint32_t number = race::hazard_number(first);
    auto* item = new QTreeWidgetItem(tree_);
    item->setText(kWhat, QStringLiteral("[%1] %2").arg(number).arg(signature));
    item->setToolTip(kWhat, signature);
    item->setData(kWhat, kGroupRole, static_cast<int>(number));
    item->setText(kCount, QString::number(group.count));
    item->setText(kKind, latin(race::kind_name(first.kind)));
    item->setText(kClass, latin(race::class_name(first.cls)));
    item->setText(kConfidence, latin(race::confidence_name(group.confidence)));
    item->setText(kStreams, streams);
    item->setForeground(kConfidence, group.confidence == race::Confidence::kDefinite
                                         ? QColor::fromRgb(kHazardRgb)
                                         : QColor(0x9a, 0x6a, 0x00));
    ++listed_groups;
    const auto& instances = hazards_->by_group()[g];
    for (size_t k = 0; k < instances.size() && k < kMaxInstancesPerGroup; ++k) {
      const HazardInstance& inst = hazards_->instances()[instances[k]];
      if (inst.hazard.confidence < min) continue;
      auto* child = new QTreeWidgetItem(item);
      child->setText(kWhat, QStringLiteral("#%1 \u2192 #%2  %3 bytes")
                                .arg(inst.hazard.first.seq)
                                .arg(inst.hazard.second.seq)
                                .arg(inst.hazard.hi - inst.hazard.lo));
      child->setData(kWhat, kInstanceRole, instances[k]);
      child->setText(kKind, latin(race::kind_name(inst.hazard.kind)));
      child->setText(kClass, latin(race::class_name(inst.hazard.cls)));
      child->setText(kConfidence, latin(race::confidence_name(inst.hazard.confidence)));
      child->setText(kStreams, hazards_->streams(inst.hazard));
      ++listed_hazards;
    }
  }
  if (tree_->topLevelItemCount() == 1) tree_->expandAll();
  rebuilding_ = false;
  const uint64_t total_groups = result.groups.size();
  summary_->setText(tr("%1 hazard(s) in %2 group(s); listing %3 group(s), %4 instance(s)%5")
                        .arg(result.hazards)
                        .arg(total_groups)
                        .arg(listed_groups)
                        .arg(listed_hazards)
                        .arg(result.fixes_checked ? (result.fixes_verified ? tr("; all fixes verified")
                                                                           : tr("; some fixes not verified"))
                                                  : QString()));
  if (previous) {
    for (uint32_t i : listedInstances())
      if (i == *previous) {
        rebuilding_ = true;
        selectInstance(i);
        rebuilding_ = false;
        break;
      }
  }
  emit filterChanged();
}

}  // namespace racetrack::viewer
