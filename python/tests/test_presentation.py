"""The metric presentation table in Python is the app's: every name -- a row, a family member, a
name no row lists -- resolves as `fathom metrics NAME` resolves it, and a store's frames carry
it."""
import unittest

import fathom
from support import Scratch, fathom_json, train_tiny

# A row of each kind, a family's member, a system metric and names only their parts describe.
NAMES = ["train_loss", "valid_ppl", "lr", "test_bleu", "valid_bpb", "gradnorm.dec.3",
         "sys.rss_mib", "sys.not_yet_sampled", "dev_bleu", "test_nll", "valid_acc",
         "my_custom_number", "train_nll", "curvature.aeos_ratio", "curvature.not_yet_recorded"]


class Presentation(Scratch):
    def test_every_name_resolves_as_the_binary_resolves_it(self):
        expected = fathom_json(self.path("unused.db"), "metrics", *NAMES)
        self.assertEqual([row["name"] for row in expected], NAMES)
        for row in expected:
            with self.subTest(name=row["name"]):
                self.assertEqual(fathom.presentation_of(row["name"]), row)

    def test_the_shipped_table_is_the_binarys(self):
        self.assertEqual(fathom.presented_metrics(), fathom_json(self.path("unused.db"), "metrics"))

    def test_which_way_is_better_by_hand(self):
        self.assertIs(fathom.higher_is_better("test_bleu"), True)
        self.assertIs(fathom.higher_is_better("valid_loss"), False)
        self.assertIs(fathom.higher_is_better("dev_bleu"), True)    # by its parts
        self.assertIs(fathom.higher_is_better("test_nll"), False)   # by its parts
        self.assertIsNone(fathom.higher_is_better("lr"))

    def test_a_stores_frame_carries_the_presentation_of_its_final_metrics(self):
        db = self.path("runs.db")
        train_tiny(db, self.dir)
        frame = fathom.open(db).runs()
        shown = frame.attrs["metric_presentation"]
        self.assertEqual(sorted(shown), sorted(frame.attrs["final_metrics"]))
        self.assertIn("valid_loss", shown)
        self.assertEqual(shown["valid_loss"]["unit"], "nats")
        self.assertIs(shown["valid_loss"]["higher_is_better"], False)


if __name__ == "__main__":
    unittest.main()
