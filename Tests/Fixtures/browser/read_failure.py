#!/usr/bin/env python3
##===----------------------------------------------------------------------===##
##
## This source file is part of the Kiln open source project
##
## Copyright (c) 2026 the Kiln project authors
## Licensed under Apache License v2.0
##
## See LICENSE for license information
##
## SPDX-License-Identifier: Apache-2.0
##
##===----------------------------------------------------------------------===##
"""Reads a failed integration in headless Chromium as a person would (BrowserTests).

Opens the integration's page in a laptop-sized window and looks at its first screen (the new
failure, its message, its marked source line), follows the failure's file link (Kiln's view of
the file, scrolled to the line) and its "Where the log reports it" link (the log by step, open at
the failing step, the line targeted), then opens each page in a 400 px window (a phone) to see
whether it scrolls sideways, and prints what it saw as one JSON object, with every
message of Chromium's console (a Content-Security-Policy violation is one).

Usage: read_failure.py BASE_URL BOT NUMBER
"""

import json
import sys
import time

from selenium.webdriver.common.by import By

from kiln_browser import chromium, sideways

TARGET = "var t = document.querySelector(':target'); return t ? [t.id, t.textContent] : null"
STEPS = "return [...document.querySelectorAll('details.step')].map(d => [d.id, d.open])"
RED = "var e = document.querySelector('.fg-red'); return e ? [getComputedStyle(e).color, e.textContent] : null"


def follow(driver, element):
    """Clicks a link and waits for the next page to load."""
    before = driver.current_url
    element.click()
    deadline = time.time() + 15
    while time.time() < deadline and driver.current_url == before:
        time.sleep(0.1)
    time.sleep(0.3)


def main():
    base, bot, number = sys.argv[1:4]
    driver = chromium(1280, 800, console=True)
    seen = {}
    try:
        page = "%s/bots/%s/integrations/%s" % (base, bot, number)
        driver.get(page)
        section = driver.find_element(By.CSS_SELECTOR, "section.failures")
        seen["viewport"] = driver.execute_script("return window.innerHeight")
        seen["failureTop"] = driver.execute_script("return arguments[0].getBoundingClientRect().top", section)
        seen["message"] = section.find_element(By.CSS_SELECTOR, ".message").text
        seen["markedLine"] = section.find_element(By.CSS_SELECTOR, "tr.marked").text
        seen["markedLineTop"] = driver.execute_script(
            "return document.querySelector('section.failures tr.marked').getBoundingClientRect().top")
        seen["introducedBy"] = section.text
        link = section.find_element(By.XPATH, ".//a[code]")
        seen["fileLink"] = link.get_attribute("href")
        follow(driver, link)
        seen["sourceURL"] = driver.current_url
        seen["sourceTarget"] = driver.execute_script(TARGET)

        driver.get(page)
        follow(driver, driver.find_element(By.LINK_TEXT, "Where the log reports it"))
        seen["logURL"] = driver.current_url
        seen["logTarget"] = driver.execute_script(TARGET)
        seen["steps"] = driver.execute_script(STEPS)
        seen["red"] = driver.execute_script(RED)
        text = driver.execute_script("return document.body.textContent")
        seen["escapes"] = "\x1b" in text
        seen["swiftpmWarning"] = ".swiftpm" in text and "not accessible" in text
        seen["sideways"] = sideways(driver, base, (
            "/", "/bots/%s" % bot, "/bots/%s/integrations/%s" % (bot, number), "/bots/%s/integrations/%s/steps" % (bot, number),
            "/bots/%s/integrations/%s/source/Tests/LibTests/LibTests.swift" % (bot, number),
            "/bots/%s/tests/MathTests/testMaybeFails" % bot, "/login"))
        seen["console"] = [entry["message"] for entry in driver.get_log("browser")]
    finally:
        driver.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
