"""Interpretation switches read by name (NOTE(switches) in model/moritani/config.py): a misspelt switch or choice
fails when the module is imported or the model built, never as a comparison that is silently false."""
from __future__ import annotations

import pytest

from model.errors import ModelError
from model.moritani import GAME, config
from model.moritani.config import (ALLY_SEPARATION, ENTRY_CAUSES, KARAMA_EOME_TIMING, SWITCHES, Choices, Interpretation,
                                   switch)
from model.moritani.context import Ctx


def test_each_switch_is_the_constant_named_after_its_key_and_each_choice_a_member_named_after_it():
    for sw in SWITCHES:
        cls = getattr(config, sw.key.upper().replace("-", "_"))
        assert cls.switch is sw and sw.members is cls
        assert [m.value for m in cls] == list(sw.choices) and cls(sw.default).value == sw.default
        assert all(getattr(cls, c.upper().replace("-", "_")) == c for c in sw.choices)


def test_a_misnamed_or_misdeclared_switch_is_refused_where_it_is_declared():
    with pytest.raises(ModelError, match="must be declared as class WIDGET_ORDER"):
        @switch("widget-order", ("A99",), default="first", question="?", source="none")
        class WIDGETS(Choices):
            FIRST = "first"
    with pytest.raises(ModelError, match="choice 'last-one' of switch 'widget-order' must be named LAST_ONE"):
        @switch("widget-order", ("A99",), default="first", question="?", source="none")
        class WIDGET_ORDER(Choices):
            FIRST = "first"
            LAST = "last-one"
    with pytest.raises(ModelError, match="has no choice 'frist' for its default"):
        @switch("widget-order", ("A99",), default="frist", question="?", source="none")
        class WIDGET_ORDER(Choices):  # noqa: F811
            FIRST = "first"


def test_a_switch_left_out_of_the_list_is_refused():
    classes = [sw.members for sw in SWITCHES]
    assert config._listed(*classes) == SWITCHES
    with pytest.raises(ModelError, match=r"not listed: \['ALLY_SEPARATION'\]"):
        config._listed(*[c for c in classes if c is not ALLY_SEPARATION])


def test_a_misspelt_choice_fails_when_the_rule_is_built():
    c = Ctx(GAME.bounds(), Interpretation())

    def rule(ctx):
        return ctx.chose(ALLY_SEPARATION.BASICS)

    with pytest.raises(AttributeError, match="BASICS"):
        rule(c)


def test_reads_by_name_give_members_and_reads_by_catalogue_id_are_refused():
    i = Interpretation.of(ENTRY_CAUSES.SHIPMENT_AND_MOVEMENT)
    assert i.choice(ENTRY_CAUSES) is ENTRY_CAUSES.SHIPMENT_AND_MOVEMENT and i.chose(ENTRY_CAUSES.SHIPMENT_AND_MOVEMENT)
    assert not i.chose(ENTRY_CAUSES.EVERY_ARRIVAL) and i.chose(KARAMA_EOME_TIMING.BEFORE_REPLY)
    sw = GAME.switch("A24")  # catalogue IDs and keys name switches in files (proposal loading)
    assert sw is ENTRY_CAUSES.switch and i.choice(sw.key) == "shipment-and-movement"  # code walking SWITCHES
    with pytest.raises(ModelError, match="unknown switch 'A24'"):
        i.choice(sw.ids[0])


def test_choices_by_member_and_by_key_build_the_same_plain_interpretation():
    by_member = Interpretation.of(ALLY_SEPARATION.ADVANCED, ENTRY_CAUSES.SHIPMENT_AND_MOVEMENT)
    by_key = Interpretation.of(ally_separation="advanced", entry_causes="shipment-and-movement")
    assert by_member == by_key and repr(by_member) == repr(by_key)
    assert all(type(v) is str for _, v in by_member.chosen)  # files, reports and digests see plain strings
    assert by_member.with_choices(ALLY_SEPARATION.BASIC).chosen == (("ally-separation", "basic"),
                                                                    ("entry-causes", "shipment-and-movement"))
    with pytest.raises(ModelError, match="switch 'ally-separation' is given twice"):
        Interpretation.of(ALLY_SEPARATION.ADVANCED, ALLY_SEPARATION.BASIC)
    with pytest.raises(ModelError, match="switch 'ally-separation' has no choice 'advance'"):
        Interpretation.of(ally_separation="advance")
